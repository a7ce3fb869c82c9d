import EndpointRouter
import Foundation

extension HTTPTransport {
    /// Performs one exchange with this transport directly, outside any endpoint, and collects the
    /// response in memory: for tests of a transport itself, such as a custom one or a recording.
    ///
    /// ```swift
    /// let stub = StubTransport().on(.get, "/health", respond: .text("ok"))
    /// let response = try await stub.exchange(OutgoingRequest(url: healthURL))
    /// #expect(response.body == Data("ok".utf8))
    /// ```
    ///
    /// None of the library's steps run: no middleware, no request checks, no redirects, no size limit,
    /// and nothing ends the exchange at the context's deadline but the transport itself (a stub's
    /// latency does). To test code the way it runs, call its endpoint inside `withTransport` instead.
    ///
    /// - Parameters:
    ///   - request: The request, sent as is.
    ///   - context: What the transport is told about the call; by default an endpoint named
    ///     `"direct"`, attempt 1, with 60 seconds to go on the clock a call on this transport would
    ///     have (a `TaskOverride`'s for a simulated transport).
    public func exchange(_ request: OutgoingRequest, context: CallContext? = nil) async throws(HTTPClientError) -> IncomingResponse {
        // The clock a call on this transport would have, by the library's one rule.
        let clock = TaskOverride.current?.clock(for: self) ?? SystemCallClock()
        let context = context ?? CallContext(endpointName: "direct", deadline: clock.now + .seconds(60), clock: clock)
        let sink = CollectingSink()
        let head = try await send(request, context: context, sink: sink)
        return IncomingResponse(head: head, body: sink.body)
    }
}

/// Keeps a whole body in memory, without a limit: `exchange(_:context:)` is for tests
/// that chose the response themselves.
private final class CollectingSink: ResponseBodySink {
    private let collected = Locked(Data())

    func receive(_ head: ResponseHead) throws(HTTPClientError) {}

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        collected.withLock { $0.append(contentsOf: bytes) }
    }

    var body: Data { collected.withLock { $0 } }
}
