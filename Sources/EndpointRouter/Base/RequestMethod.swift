/// An HTTP request method.
///
/// ```swift
/// var method: RequestMethod { self == .create ? .post : .get }
/// ```
public enum RequestMethod: String, Sendable, CaseIterable {
    /// Reads a resource. Parameters go to the query by default.
    case get = "GET"
    /// Like GET, without a response body.
    case head = "HEAD"
    /// Creates a resource or submits data. Parameters go to a JSON body by default.
    case post = "POST"
    /// Replaces a resource.
    case put = "PUT"
    /// Deletes a resource. Parameters go to the query by default.
    case delete = "DELETE"
    /// Opens a tunnel; rarely useful to an API client, kept for completeness.
    case connect = "CONNECT"
    /// Asks which methods a resource supports.
    case options = "OPTIONS"
    /// Echoes the request back; for diagnostics.
    case trace = "TRACE"
    /// Changes part of a resource.
    case patch = "PATCH"

    /// Whether sending the request twice has the effect of sending it once (RFC 9110, section 9.2.2):
    /// GET, HEAD, PUT, DELETE, OPTIONS and TRACE. The one rule for what the library may send again on
    /// its own — a retry (``RetryPolicy/retryableMethods``), a stream's reconnection
    /// (``ReconnectPolicy``) — unless the endpoint says otherwise with ``EndpointOptions/retryable``.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace: true
        case .post, .patch, .connect: false
        }
    }

    /// Whether `.automatic` parameter encoding puts parameters into the URL query for this method.
    ///
    /// These are the methods whose requests conventionally carry no body.
    public var encodesParametersInQuery: Bool {
        switch self {
        case .get, .head, .delete, .options, .trace: true
        case .post, .put, .patch, .connect: false
        }
    }
}
