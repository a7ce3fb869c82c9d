/// How one streamed response ended, for a middleware that asked with
/// ``CallContext/onStreamEnd(_:)``: logging writes it, metrics report it.
///
/// <!-- snippet: prelude=doc,doc-intercept -->
/// ```swift
/// context.onStreamEnd { summary in
///     print("\(context.endpointName): \(summary.elements) events, \(summary.bytes) bytes, \(summary.error?.caseName ?? "ended")")
/// }
/// return try await next(request, context)
/// ```
public struct StreamSummary: Sendable, Equatable {
    /// Body bytes received.
    public var bytes: Int64
    /// Elements handed to the consumer: pieces, lines, JSON values or events.
    public var elements: Int
    /// From the start of the call to the end of the stream.
    public var duration: Duration
    /// Why it ended, or `nil` when the server ended the body. A consumer that left its loop early
    /// shows as `.cancelled`.
    public var error: HTTPClientError?

    /// Creates a summary.
    public init(bytes: Int64, elements: Int, duration: Duration, error: HTTPClientError?) {
        self.bytes = bytes
        self.elements = elements
        self.duration = duration
        self.error = error
    }
}

/// The stream-end handlers of one streaming call, run once when the stream ends (or when the call
/// fails before a stream was delivered).
final class StreamObserver: Sendable {
    private struct State {
        var handlers: [@Sendable (StreamSummary) -> Void] = []
        var ended = false
    }

    private let state = Locked(State())
    let started = ContinuousClock.now

    func add(_ handler: @escaping @Sendable (StreamSummary) -> Void) {
        // Registered after the end (a middleware outliving a call cut off by its deadline): the
        // summary went out already, so it is dropped rather than reported twice or late.
        state.withLock { state in
            if !state.ended { state.handlers.append(handler) }
        }
    }

    /// Runs every handler once, in the order they were added (the innermost middleware returns, and
    /// so adds its handler, first); later calls do nothing.
    func end(bytes: Int64, elements: Int, error: HTTPClientError?) {
        let handlers = state.withLock { state -> [@Sendable (StreamSummary) -> Void] in
            guard !state.ended else { return [] }
            state.ended = true
            defer { state.handlers = [] }
            return state.handlers
        }
        guard !handlers.isEmpty else { return }
        let summary = StreamSummary(bytes: bytes, elements: elements, duration: ContinuousClock.now - started, error: error)
        for handler in handlers { handler(summary) }
    }
}
