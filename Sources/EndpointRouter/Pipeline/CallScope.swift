import Foundation

/// Owns the body sinks of one call, so that when the call ends — by success, failure, deadline or
/// cancellation — every sink still open is closed at once: memory is freed, partial download files
/// are deleted, and a transport still writing is refused (and so stops) even if it has not noticed
/// the cancellation yet.
final class CallScope: StripeLocked, @unchecked Sendable {
    /// Where response bodies go.
    enum Destination: Sendable {
        /// Into memory, failing past `limit` bytes.
        case memory(limit: Int?)
        /// Into a temporary file in `directory` when the status is acceptable.
        case file(directory: URL, isAcceptable: @Sendable (Int) -> Bool, progress: ProgressReporter?)
        /// To the caller as it arrives, through a buffer of `capacity` bytes (a streaming call);
        /// `watch`, the stream's timeouts on the call's clock when that is not the system's.
        case stream(capacity: Int, watch: ClockWatch?)
    }

    /// One exchange's sink.
    enum Sink: Sendable {
        case memory(MemoryBodySink)
        case file(FileBodySink)
        case stream(StreamBodySink)

        var sink: any ResponseBodySink {
            switch self {
            case .memory(let sink): sink
            case .file(let sink): sink
            case .stream(let sink): sink
            }
        }

        /// The whole response once the transport returned `head`.
        func finish(_ head: ResponseHead) throws(HTTPClientError) -> IncomingResponse {
            switch self {
            case .memory(let sink): IncomingResponse(head: head, body: try sink.finish())
            case .file(let sink): try sink.finish(head)
            case .stream: IncomingResponse(head: head)
            }
        }

        func close(keeping kept: URL?) {
            switch self {
            case .memory(let sink): sink.close()
            case .file(let sink): sink.close(keeping: kept)
            case .stream(let sink): sink.close(.cancelled)
            }
        }

        /// The stream this sink is, if it is one.
        var stream: StreamBodySink? {
            if case .stream(let stream) = self { stream } else { nil }
        }
    }

    let destination: Destination
    // Safe (`@unchecked Sendable`): only touched under the object's stripe lock (`withLock`).
    var lockedState = CallScopeState<Sink, StreamBodySink>()

    init(_ destination: Destination) {
        self.destination = destination
    }

    /// A fresh sink for the next exchange, which sends a `method` request: a redirect hop may change
    /// it, and a HEAD's response has no body whatever its `Content-Length` says.
    ///
    /// - Throws: `.cancelled` once the call has ended.
    func makeSink(answering method: RequestMethod) throws(HTTPClientError) -> Sink {
        let sink: Sink =
            switch destination {
            case .memory(let limit): .memory(MemoryBodySink(limit: limit, answering: method))
            case .file(let directory, let isAcceptable, let progress):
                .file(FileBodySink(directory: directory, isAcceptable: isAcceptable, progress: progress, answering: method))
            case .stream(let capacity, let watch): .stream(StreamBodySink(capacity: capacity, watch: watch))
            }
        guard withLock({ $0.sinkMade(sink) }) else { throw .cancelled }
        return sink
    }

    /// Marks `stream` as the one to hand to the caller; the stream marked before it is closed.
    ///
    /// - Throws: `.cancelled` once the call has ended (its deadline passed while the head came in):
    ///   `stream` is closed then, since nobody will read it.
    func offer(_ stream: StreamBodySink) throws(HTTPClientError) {
        switch withLock({ $0.offered(stream) }) {
        case .kept(let replaced): replaced?.close(.cancelled)
        case .refused:
            stream.close(.cancelled)
            throw .cancelled
        }
    }

    /// Whether the latest exchange is a stream whose head came in with a status in `acceptable`: the
    /// call's answer is in, though the call's own task may not have run since.
    func hasStreamHead(acceptable: any StatusCodeSet) -> Bool {
        guard case .stream = destination else { return false }
        let latest = withLock { scope -> Sink? in
            guard case .open(let sinks, _) = scope.state else { return nil }
            return sinks.last
        }
        guard let head = latest?.stream?.receivedHead else { return false }
        return acceptable.contains(head.statusCode)
    }

    /// Ends the call: closes every sink, deleting every temporary file but `kept`, and every stream
    /// but the one offered last, which is returned (the caller now owns it).
    @discardableResult
    func close(keeping kept: URL? = nil) -> StreamBodySink? {
        let (closing, delivered) = withLock { $0.ended(stream: \.stream) }
        for sink in closing { sink.close(keeping: kept) }
        return delivered
    }
}
