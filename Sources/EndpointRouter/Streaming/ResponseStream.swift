import Foundation

/// The body of a streaming call as an `AsyncSequence` of elements — pieces of `Data`, lines, JSON
/// values or ``ServerSentEvent``s — that throws ``HTTPClientError``.
///
/// ```swift
/// for try await event in ChatAPI.completions(prompt).events() {
///     print(event.event ?? "message", event.data)
/// }
/// ```
///
/// Nothing is sent until the loop asks for the first element; each loop (each
/// `makeAsyncIterator()`) sends the request anew. The request goes through the endpoint's
/// middlewares, request checks and redirects, and its status is validated, before the first
/// element: a status outside ``HTTPClient/acceptableStatusCodes`` throws `.unacceptableStatusCode`
/// with the head and the first 64 KiB of the body. Then the body is held at most
/// ``StreamLimits/bufferSize`` ahead of the loop (a transport that cannot wait, URLSession, fails
/// the stream instead; see ``StreamLimits/bufferSize``). Leaving the loop, or cancelling its task,
/// ends the exchange and closes the connection.
///
/// Every error is an ``HTTPClientError``: the iterator's `next()` says so in its type, and so does
/// `for try await` where the standard library has typed `next(isolation:)` (Linux, macOS 15, iOS 18
/// and later); before that the loop's error is `any Error`, still always an ``HTTPClientError``.
/// The value is `Sendable` and holds no response, so it can be made on one actor and read on another.
public struct ResponseStream<Element: Sendable>: AsyncSequence, Sendable {
    /// The only error a stream throws.
    public typealias Failure = HTTPClientError

    let call: Result<Call, HTTPClientError>
    let limits: StreamLimits
    let reconnect: ReconnectPolicy
    let framing: @Sendable () -> any StreamFraming<Element>

    /// Starts reading: the request is sent when the first element is asked for.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: StreamReader(call: call, limits: limits, reconnect: reconnect, framing: framing()))
    }

    /// Reads the whole stream into an array, for a stream that ends (a finite NDJSON export, a test):
    /// at most `maxElements`, after which the connection is closed.
    ///
    /// ```swift
    /// let rows = try await ExportAPI.rows.jsonLines(of: Row.self).collect()
    /// ```
    nonisolated(nonsending) public func collect(upTo maxElements: Int = .max) async throws(HTTPClientError) -> [Element] {
        var elements: [Element] = []
        var iterator = makeAsyncIterator()
        while elements.count < maxElements, let element = try await iterator.next() {
            elements.append(element)
        }
        return elements
    }

    /// Reads the elements in order; see ``ResponseStream``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        // Inlinable, with the reader's framed elements, so that a loop in the caller's module takes
        // most elements without an asynchronous call and with `Element` known: unspecialised, the
        // asynchronous call, generic metadata and value-witness copy per element were about an
        // eighth of perf's samples of a fast event stream on CurlTransport.
        @usableFromInline let reader: StreamReader<Element>

        /// The next element; `nil` when the body ended (or, reconnecting, when the server said to stop).
        @inlinable public mutating func next() async throws(HTTPClientError) -> Element? {
            if let element = reader.takePending() { return element }
            return try await reader.next()
        }

        /// The next element, read on `actor`.
        @inlinable public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPClientError) -> Element? {
            if let element = reader.takePending() { return element }
            return try await reader.next()
        }
    }
}

/// The state of one loop over a ``ResponseStream``: the connection, its framing and the elements
/// framed but not yet handed out. Its end (the loop dropping its iterator) closes the connection.
/// When to connect again is ``ReconnectionState``'s decision.
@usableFromInline final class StreamReader<Element: Sendable> {
    private var call: Call?
    private var machine: ReconnectionState
    private let limits: StreamLimits
    private var framing: any StreamFraming<Element>
    // Unchecked exclusivity: the reader belongs to one iterator, which one loop drives at a time,
    // and the dynamic checks cost 259 instructions per element (2,918 → 3,177, +8.9 %: server-sent
    // events framed from an instant transport under callgrind, 2,000 and 12,000 events; issue 27).
    /// Elements framed: those from ``nextPending`` on are not handed out yet.
    @usableFromInline @exclusivity(unchecked) var pending: [Element] = []
    @usableFromInline @exclusivity(unchecked) var nextPending = 0
    private var connection: (stream: StreamBodySink, observer: StreamObserver)?
    private var elements = 0
    private var deadline: StreamDeadline?

    init(call: Result<Call, HTTPClientError>, limits: StreamLimits, reconnect: ReconnectPolicy, framing: any StreamFraming<Element>) {
        switch call {
        case .success(let call):
            self.call = call
            machine = ReconnectionState(policy: reconnect, mayRepeat: call.options.retryable ?? call.request.method.isIdempotent)
        case .failure(let error):
            machine = ReconnectionState(policy: reconnect, mayRepeat: false, failure: error)
        }
        self.limits = limits
        self.framing = framing
    }

    deinit {
        if let connection {
            connection.stream.close(.cancelled)
            connection.observer.end(bytes: connection.stream.totalBytes, elements: elements, error: .cancelled)
        }
    }

    /// The next element already framed, if there is one.
    @inlinable func takePending() -> Element? {
        guard nextPending < pending.count else { return nil }
        defer { nextPending += 1 }
        return pending[nextPending]
    }

    /// Frames the next elements, connecting when needed, and returns the first.
    @usableFromInline nonisolated(nonsending) func next() async throws(HTTPClientError) -> Element? {
        while true {
            if let element = takePending() { return element }
            pending.removeAll(keepingCapacity: true)
            nextPending = 0
            guard let (stream, _) = connection else {
                switch machine.next(requested: framing.requestedRetryDelay) {
                case .connect:
                    // On the call's clock (a test's virtual one) and in real time, as a call's deadline.
                    if let call {
                        deadline = limits.totalTimeout.map { StreamDeadline(after: $0, on: call.clock) }
                        await connect(call)
                    }
                case .reconnect(let delay): try await reconnect(after: delay)
                case .finish: return nil
                case .fail(let error): throw error
                }
                continue
            }
            // Elements completed before a failure (the lines before a bad JSON line) are still
            // handed out; the error comes after them.
            do throws(HTTPClientError) {
                let piece = try await stream.next()
                if let piece { try framing.frame(piece, into: &pending) } else { try framing.finish(into: &pending) }
                if !pending.isEmpty {
                    elements += pending.count
                    machine.delivered()
                }
                if piece == nil { endConnection(error: nil) }
            } catch {
                endConnection(error: error)
            }
        }
    }

    /// Waits `delay`, then sends the request again, from where the last connection stopped.
    private nonisolated(nonsending) func reconnect(after delay: Duration) async throws(HTTPClientError) {
        guard var call else { return }
        // On the call's clock: virtual under a test's override, so a 3 s reconnection takes no time.
        do throws(HTTPClientError) {
            try await call.clock.sleep(for: delay)
        } catch {
            machine.stopped()
            throw .cancelled
        }
        for (name, value) in framing.resumeHeaders {
            // The value is the server's (an event ID): one the request checks would refuse gets a
            // message about the server, not the caller's "remove it", and ends the stream instead
            // of resuming from the start, which would deliver every event again.
            do throws(HTTPClientError) {
                try RequestChecks.checkHeader(name: name, value: value)
            } catch {
                machine.stopped()
                throw .invalidHeader(
                    "the server's last event ID holds a control character, so it cannot be sent back as '\(name)' and "
                        + "the stream cannot resume where it stopped; the server must send IDs without control characters")
            }
            call.request.headers[name] = value
        }
        await connect(call)
    }

    /// Sends `call` and takes its stream; the machine learns how that went.
    private nonisolated(nonsending) func connect(_ call: Call) async {
        let observer = StreamObserver()
        switch await call.openStream(limits: limits, deadline: deadline, observer: observer) {
        case .success(let stream):
            elements = 0
            let head = stream.receivedHead ?? ResponseHead(statusCode: 200)
            if machine.opened(status: head.statusCode) != nil {
                stream.close(.cancelled)
                observer.end(bytes: 0, elements: 0, error: nil)
                return
            }
            framing.startConnection(
                EndpointResponse(
                    value: Data(), statusCode: head.statusCode, headers: head.headers, data: Data(), request: call.request,
                    url: head.url ?? call.request.url))
            connection = (stream, observer)
        case .failure(let error):
            machine.openFailed(error, pastDeadline: pastDeadline)
        }
    }

    private func endConnection(error: HTTPClientError?) {
        guard let (stream, observer) = connection else { return }
        connection = nil
        stream.close(error ?? .cancelled)
        observer.end(bytes: stream.totalBytes, elements: elements, error: error)
        machine.bodyEnded(error, pastDeadline: pastDeadline)
    }

    private var pastDeadline: Bool {
        guard let deadline, let call else { return false }
        return call.clock.now >= deadline.onClock
    }
}

extension HTTPClientError {
    /// A failure a reconnection may cure: the connection could not be made or was lost.
    var isConnectionLoss: Bool {
        if case .transport = self { true } else { false }
    }
}
