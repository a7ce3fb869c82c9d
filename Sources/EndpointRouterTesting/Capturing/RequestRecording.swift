import EndpointRouter

/// A transport that keeps every request it received, in arrival order, each exactly once.
///
/// ``StubTransport``, ``RecordingTransport`` and ``ReplayTransport`` all record, so assertions
/// read the same whichever one a test uses:
///
/// ```swift
/// #expect(stub.requestCount == 1)
/// #expect(stub.lastRequest?.queryItems["userId"] == "1")
/// #expect(stub.lastRequest?.context.attempt == 1)
/// #expect(stub.requests(matching: .delete, path: "/todos/:id").isEmpty)
/// ```
///
/// Only requests that reached the transport are recorded: one the library refused before sending
/// (an invalid header, a body on a GET) never appears, just as it never reaches a server.
public protocol RequestRecording: Sendable {
    /// The requests received so far, oldest first.
    var capturedRequests: [CapturedRequest] { get }
    /// Forgets the requests received so far, for a test that asserts on one phase at a time.
    func removeAllCapturedRequests()
}

extension RequestRecording {
    /// The most recent request, or `nil` when none arrived.
    public var lastRequest: CapturedRequest? { capturedRequests.last }

    /// How many requests arrived.
    public var requestCount: Int { capturedRequests.count }

    /// The requests whose method and path match, oldest first.
    ///
    /// `path` takes the same patterns as ``StubTransport`` routes, such as `"/todos/:id"` or
    /// `"/files/*"`; a `nil` method matches any.
    public func requests(matching method: RequestMethod? = nil, path: String) -> [CapturedRequest] {
        let pattern = PathPattern(path)
        return capturedRequests.filter { captured in
            (method.map { $0 == captured.method } ?? true)
                && pattern.match(RequestTarget.segments(ofEncodedPath: captured.path)) != nil
        }
    }
}
