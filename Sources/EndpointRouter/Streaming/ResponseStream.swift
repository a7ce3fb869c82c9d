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
        let reader: StreamReader<Element>

        /// The next element; `nil` when the body ended (or, reconnecting, when the server said to stop).
        public mutating func next() async throws(HTTPClientError) -> Element? {
            if let element = reader.takePending() { return element }
            return try await reader.next()
        }

        /// The next element, read on `actor`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPClientError) -> Element? {
            // Most elements were framed already: handed out without an asynchronous call.
            if let element = reader.takePending() { return element }
            return try await reader.next()
        }
    }
}

/// The state of one loop over a ``ResponseStream``: the connection, its framing and the elements
/// framed but not yet handed out. Its end (the loop dropping its iterator) closes the connection.
final class StreamReader<Element: Sendable> {
    private var call: Call?
    private var failure: HTTPClientError?
    private let limits: StreamLimits
    private let reconnect: ReconnectPolicy
    private var framing: any StreamFraming<Element>
    // Unchecked exclusivity: the reader belongs to one iterator, which one loop drives at a time,
    // and the dynamic checks were a measurable part of handing out each element.
    @exclusivity(unchecked) private var pending: [Element] = []
    @exclusivity(unchecked) private var nextPending = 0
    private var connection: (stream: StreamBodySink, observer: StreamObserver)?
    private var elements = 0
    private var finished = false
    /// Reconnections made since a connection last delivered an element; `nil` before the first
    /// connection. Not reset by a 2xx head alone: a server that answers and ends at once, again and
    /// again, meets growing waits and the policy's attempts, not a loop.
    private var reconnections: Int?
    /// Whether the request may be sent again on its own: an idempotent method, or the endpoint's
    /// ``EndpointOptions/retryable`` (the rule a retry follows).
    private let mayRepeat: Bool
    private var lastError: HTTPClientError?
    private var deadline: ContinuousClock.Instant?

    init(call: Result<Call, HTTPClientError>, limits: StreamLimits, reconnect: ReconnectPolicy, framing: any StreamFraming<Element>) {
        switch call {
        case .success(let call):
            self.call = call
            mayRepeat = call.options.retryable ?? call.request.method.isIdempotent
        case .failure(let error):
            failure = error
            mayRepeat = false
        }
        self.limits = limits
        self.reconnect = reconnect
        self.framing = framing
    }

    deinit {
        if let connection {
            connection.stream.close(.cancelled)
            connection.observer.end(bytes: connection.stream.totalBytes, elements: elements, error: .cancelled)
        }
    }

    /// The next element already framed, if there is one.
    func takePending() -> Element? {
        guard nextPending < pending.count else { return nil }
        defer { nextPending += 1 }
        return pending[nextPending]
    }

    nonisolated(nonsending) func next() async throws(HTTPClientError) -> Element? {
        while true {
            if nextPending < pending.count {
                let element = pending[nextPending]
                nextPending += 1
                return element
            }
            pending.removeAll(keepingCapacity: true)
            nextPending = 0
            if finished { return nil }
            if let failure {
                finished = true
                throw failure
            }
            guard let (stream, _) = connection else {
                try await connect()
                continue
            }
            do throws(HTTPClientError) {
                if let piece = try await stream.next() {
                    let before = pending.count
                    try framing.frame(piece, into: &pending)
                    if pending.count > before {
                        elements += pending.count - before
                        reconnections = 0
                    }
                } else {
                    let before = pending.count
                    try framing.finish(into: &pending)
                    if pending.count > before {
                        elements += pending.count - before
                        reconnections = 0
                    }
                    endConnection(error: nil)
                    if !mayReconnect(after: nil) { finished = true }
                }
            } catch {
                endConnection(error: error)
                // Elements completed before the failure (the lines before a bad JSON line) are
                // still handed out; the error comes after them.
                if mayReconnect(after: error) {
                    lastError = error
                } else {
                    failure = error
                }
            }
        }
    }

    /// Sends the request (again, after waiting, for a reconnection) and takes its stream.
    private nonisolated(nonsending) func connect() async throws(HTTPClientError) {
        guard var call else { return }
        if let attempt = reconnections {
            guard attempt < reconnect.maxAttempts else {
                finished = true
                if let lastError { throw lastError }
                return
            }
            reconnections = attempt + 1
            let delay = reconnect.delay(attempt: attempt + 1, requested: framing.requestedRetryDelay)
            do {
                try await Task.sleep(for: delay)
            } catch {
                finished = true
                throw .cancelled
            }
            for (name, value) in framing.resumeHeaders {
                // The value is the server's (an event ID): one the request checks would refuse gets a
                // message about the server, not the caller's "remove it", and ends the stream instead
                // of resuming from the start, which would deliver every event again.
                do throws(HTTPClientError) {
                    try RequestChecks.checkHeader(name: name, value: value)
                } catch {
                    finished = true
                    throw .invalidHeader(
                        "the server's last event ID holds a control character, so it cannot be sent back as '\(name)' and "
                            + "the stream cannot resume where it stopped; the server must send IDs without control characters")
                }
                call.request.headers[name] = value
            }
        } else {
            reconnections = 0
            deadline = limits.totalTimeout.map { Deadline.instant(after: $0) }
        }
        let observer = StreamObserver()
        switch await call.openStream(limits: limits, deadline: deadline, observer: observer) {
        case .success(let stream):
            elements = 0
            let head = stream.receivedHead ?? HTTPResponseHead(statusCode: 200)
            if head.statusCode == 204, reconnect.maxAttempts > 0 {
                // The spec's way for a server to stop an event source's reconnections.
                stream.close(.cancelled)
                observer.end(bytes: 0, elements: 0, error: nil)
                finished = true
                return
            }
            framing.startConnection(
                EndpointResponse(
                    value: Data(), statusCode: head.statusCode, headers: head.headers, data: Data(), request: call.request,
                    url: head.url ?? call.request.url))
            connection = (stream, observer)
        case .failure(let error):
            // A reconnection that fails the way a lost connection does is tried again (up to the
            // policy's attempts); anything else, and any failure of the first connection, ends it.
            if let attempts = reconnections, attempts > 0, mayReconnect(after: error) {
                lastError = error
                return
            }
            finished = true
            throw error
        }
    }

    private func endConnection(error: HTTPClientError?) {
        guard let (stream, observer) = connection else { return }
        connection = nil
        stream.close(error ?? .cancelled)
        observer.end(bytes: stream.totalBytes, elements: elements, error: error)
    }

    /// Whether the stream goes on with a new connection after its body ended with `error`.
    private func mayReconnect(after error: HTTPClientError?) -> Bool {
        guard reconnect.maxAttempts > 0, mayRepeat else { return false }
        if let deadline, ContinuousClock.now >= deadline { return false }
        guard let error else { return true }
        return error.isConnectionLoss || error == .timedOut
    }
}

extension HTTPClientError {
    /// A failure a reconnection may cure: the connection could not be made or was lost.
    var isConnectionLoss: Bool {
        if case .transport = self { return true }
        return false
    }
}
