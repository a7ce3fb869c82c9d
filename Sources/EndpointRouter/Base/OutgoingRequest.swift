import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as it travels from the endpoint through the middlewares to a transport.
///
/// The library carries its own value rather than a `URLRequest`, because `URLRequest` silently drops
/// a header value containing a line break: a middleware's mistake would vanish instead of failing.
/// Here every header is kept as written, and the request checks that run after the last middleware
/// turn such a value into `.invalidHeader` before any transport sees it.
///
/// ```swift
/// struct TraceID: HTTPMiddleware {
///     func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
///         var request = request
///         request.headers["X-Trace-ID"] = UUID().uuidString
///         return try await next(request, context)
///     }
/// }
/// ```
public struct OutgoingRequest: Sendable, Hashable {
    /// What a request sends after its head.
    public enum Body: Sendable, Hashable {
        /// Bytes held in memory.
        case data(Data)
        /// The contents of a file, streamed from disk while sending, never read whole into memory.
        case file(URL)
    }

    /// The method.
    public var method: RequestMethod
    /// The absolute http(s) URL, query included.
    public var url: URL
    /// The header fields, in the order they will be written.
    public var headers: HeaderFields
    /// The body, or `nil` for none.
    public var body: Body?

    /// Creates a request.
    public init(method: RequestMethod = .get, url: URL, headers: HeaderFields = HeaderFields(), body: Body? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The bytes of an in-memory body; `nil` for no body or a file body.
    public var bodyData: Data? {
        if case .data(let data) = body { return data }
        return nil
    }

    /// The same request as a `URLRequest`, for inspection or for URLSession.
    ///
    /// A file body is not read: set `httpBodyStream` or use an upload task for it.
    public var urlRequest: URLRequest {
        var request = URLRequest(url: url)
        // GET is a new URLRequest's method already; on swift-corelibs-foundation setting any method
        // costs up to six case-insensitive NSString comparisons.
        if method != .get { request.httpMethod = method.rawValue }
        if let bodyData { request.httpBody = bodyData }
        // One assignment of the whole field set: on swift-corelibs-foundation each `addValue` checks
        // and re-capitalises the name and rewrites the field dictionary (about 4x the cost of this).
        // The result is what `addValue` gives: the first casing of a name wins, repeats join with ",".
        let merged = headers.merged(separator: ",")
        if !merged.isEmpty { request.allHTTPHeaderFields = merged }
        return request
    }
}
