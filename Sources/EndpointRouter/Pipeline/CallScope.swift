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
    }

    /// One exchange's sink.
    enum Sink: Sendable {
        case memory(MemoryBodySink)
        case file(FileBodySink)

        var sink: any ResponseBodySink {
            switch self {
            case .memory(let sink): sink
            case .file(let sink): sink
            }
        }

        /// The whole response once the transport returned `head`.
        func finish(_ head: HTTPResponseHead) throws(HTTPClientError) -> HTTPResponse {
            switch self {
            case .memory(let sink): HTTPResponse(head: head, body: try sink.finish())
            case .file(let sink): try sink.finish(head)
            }
        }

        func close(keeping kept: URL?) {
            switch self {
            case .memory(let sink): sink.close()
            case .file(let sink): sink.close(keeping: kept)
            }
        }
    }

    struct State {
        var sinks: [Sink] = []
        var closed = false
    }

    let destination: Destination
    // Safe (`@unchecked Sendable`): only touched under the object's stripe lock (`withLock`).
    var lockedState = State()

    init(_ destination: Destination) {
        self.destination = destination
    }

    /// A fresh sink for the next exchange.
    ///
    /// - Throws: `.cancelled` once the call has ended.
    func makeSink() throws(HTTPClientError) -> Sink {
        let sink: Sink =
            switch destination {
            case .memory(let limit): .memory(MemoryBodySink(limit: limit))
            case .file(let directory, let isAcceptable, let progress):
                .file(FileBodySink(directory: directory, isAcceptable: isAcceptable, progress: progress))
            }
        try withLock { state throws(HTTPClientError) in
            if state.closed { throw .cancelled }
            state.sinks.append(sink)
        }
        return sink
    }

    /// Ends the call: closes every sink, deleting every temporary file but `kept`.
    func close(keeping kept: URL? = nil) {
        let sinks = withLock { state -> [Sink] in
            state.closed = true
            defer { state.sinks = [] }
            return state.sinks
        }
        for sink in sinks { sink.close(keeping: kept) }
    }
}
