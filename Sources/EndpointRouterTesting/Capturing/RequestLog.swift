import EndpointRouter

/// The thread-safe list behind ``RequestRecording``.
final class RequestLog: Sendable {
    private let entries = Locked<[CapturedRequest]>([])

    /// Records `request` and returns it taken apart.
    @discardableResult
    func append(_ request: OutgoingRequest, context: CallContext) -> CapturedRequest {
        let captured = CapturedRequest(request, context: context)
        entries.withLock { $0.append(captured) }
        return captured
    }

    var all: [CapturedRequest] { entries.withLock { $0 } }

    func removeAll() { entries.withLock { $0.removeAll() } }
}
