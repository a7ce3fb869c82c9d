import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One API as a type: each case of a conforming enum is one endpoint.
///
/// Declare what differs per endpoint; everything else has a default:
///
/// ```swift
/// enum TodoAPI: HTTPClient {
///     case list(userId: Int?)
///     case todo(id: Int)
///     case create(NewTodo)
///
///     var host: String { "https://jsonplaceholder.typicode.com" }
///     var endpoint: String {
///         switch self {
///         case .list: "todos"
///         case .todo(let id): "todos/\(segment: id)"
///         case .create: "todos"
///         }
///     }
///     var method: RequestMethod { if case .create = self { .post } else { .get } }
///     var parameters: [String: Any]? {
///         if case .list(let userId?) = self { ["userId": userId] } else { nil }
///     }
///     var body: EndpointBody? { if case .create(let todo) = self { .json(todo) } else { nil } }
/// }
///
/// let todos = await TodoAPI.list(userId: 1).request(type: [Todo].self)   // Result<[Todo], HTTPClientError>
/// ```
///
/// A request flows one way: the endpoint builds an ``OutgoingRequest`` (``makeRequest()``), the call's
/// deadline starts, the ``middlewares`` see it in order, the request checks run, the library follows
/// redirects (``redirectPolicy``) while the ``transport`` performs each exchange, the body goes into
/// memory up to ``maxResponseSize`` (or to a file, for ``download(to:timeout:headers:middlewares:progress:)``), and the response
/// is validated against ``acceptableStatusCodes`` and decoded with ``decoder``.
public protocol HTTPClient {
    /// The server, with scheme and optionally a port and base path: `"https://api.example.com:8443/api"`.
    var host: String { get }
    /// A path between host and endpoint, such as an API version: `"/v2"`. Defaults to `""`.
    var path: String { get }
    /// The endpoint's own path, optionally with a fixed query written with `\(query:)`:
    /// `"todos/\(segment: id)"`, `"todos\(query: "userId=1")"`. Any other `?`, and any `#`, fails the
    /// call with ``HTTPClientError/delimiterInEndpoint(_:)``.
    var endpoint: String { get }
    /// The method. Defaults to `.get`.
    var method: RequestMethod { get }
    /// Parameters, placed according to ``parameterEncoding``. Defaults to `nil`.
    var parameters: [String: Any]? { get }
    /// Headers; they override the defaults (`Accept`, `User-Agent`, `Content-Type`) whatever their
    /// casing. Defaults to `nil`.
    var headers: [String: String]? { get }
    /// Where ``parameters`` go. Defaults to `.automatic`.
    var parameterEncoding: ParameterEncoding { get }
    /// How arrays and booleans are written into queries and forms. Defaults to ``QueryStyle/default``.
    var queryStyle: QueryStyle { get }
    /// An explicit body; when set, ``parameters`` go to the query. Defaults to `nil`.
    var body: EndpointBody? { get }
    /// A total deadline in seconds for the whole call: every middleware, attempt, wait and redirect
    /// included; sub-second values work. Defaults to `nil`: 60 seconds.
    var timeout: TimeInterval? { get }
    /// The largest response body kept in memory, in bytes after decompression; a larger one fails
    /// with ``HTTPClientError/responseTooLarge(limit:)`` as soon as it crosses the limit. Defaults to
    /// 64 MiB; `nil` means no limit. Downloads go to a file and are not limited by it. A HEAD, 1xx,
    /// 204 or 304 response has no body, so its `Content-Length` (the size a GET would get) never
    /// counts against the limit.
    var maxResponseSize: Int? { get }
    /// How redirects are followed: hop limit and extra headers to strip when the origin changes.
    /// Defaults to ``RedirectPolicy/init(maximumHops:sensitiveHeaders:)`` with 10 hops.
    var redirectPolicy: RedirectPolicy { get }
    /// The endpoint's name in ``CallContext/endpointName``, for logs and metrics. Defaults to the
    /// type and case name, such as `"TodoAPI.todo"`, never the case's associated values.
    var endpointName: String { get }
    /// The type of ``acceptableStatusCodes``, inferred from the property you write.
    associatedtype AcceptableStatusCodes: StatusCodeSet = Range<Int>
    /// Statuses that count as success; anything else is `.unacceptableStatusCode`. Defaults to
    /// `200..<300`; a `Range`, `ClosedRange`, `Set` or array of codes is accepted
    /// (`var acceptableStatusCodes: Set<Int> { [200, 304] }`).
    var acceptableStatusCodes: AcceptableStatusCodes { get }
    /// Decodes response bodies. Defaults to a plain `JSONDecoder()` made once for the endpoint type
    /// and shared by all its calls (never change its settings: another call may be decoding).
    ///
    /// Return your own for other settings; a `static let` is shared the same way, a decoder made
    /// in the getter is made again for every call:
    ///
    /// ```swift
    /// static let decoder: JSONDecoder = {
    ///     let decoder = JSONDecoder()
    ///     decoder.dateDecodingStrategy = .iso8601
    ///     return decoder
    /// }()
    /// var decoder: JSONDecoder { Self.decoder }
    /// ```
    var decoder: JSONDecoder { get }
    /// Encodes `.json` bodies. Defaults to a plain `JSONEncoder()` made once for the endpoint type
    /// and shared, like ``decoder``.
    var encoder: JSONEncoder { get }
    /// What sends the request. Defaults to ``DefaultTransport/shared`` (``CurlTransport`` on Linux,
    /// ``URLSessionTransport/shared`` on Apple platforms); tests plug in a stub.
    var transport: any HTTPTransport { get }
    /// Steps between building and sending: authentication, retries, logging. Defaults to none.
    ///
    /// It is read once per call, so a middleware that keeps state (a token being refreshed, a
    /// cache) must be an object created once and returned here each time, such as a `static let`.
    var middlewares: [any HTTPMiddleware] { get }
    /// Settings the middlewares read for this endpoint (``CallContext/options``), such as
    /// whether a POST may be retried. Defaults to ``EndpointOptions/init()``.
    var options: EndpointOptions { get }
}

extension HTTPClient {
    /// `""`: no path between host and endpoint.
    public var path: String { "" }
    /// `.get`.
    public var method: RequestMethod { .get }
    /// `nil`: no parameters.
    public var parameters: [String: Any]? { nil }
    /// `nil`: only the default headers.
    public var headers: [String: String]? { nil }
    /// `.automatic`: query for GET-like methods, JSON otherwise.
    public var parameterEncoding: ParameterEncoding { .automatic }
    /// Brackets for arrays, `true`/`false` for booleans.
    public var queryStyle: QueryStyle { .default }
    /// `nil`: no explicit body.
    public var body: EndpointBody? { nil }
    /// `nil`: a 60-second deadline.
    public var timeout: TimeInterval? { nil }
    /// 64 MiB.
    public var maxResponseSize: Int? { 64 * 1024 * 1024 }
    /// 10 hops, credentials stripped when the origin changes.
    public var redirectPolicy: RedirectPolicy { RedirectPolicy() }
    /// `"TypeName.caseName"`, from the value's type and enum case.
    public var endpointName: String { EndpointName.defaultName(of: self) }
    /// A plain `JSONDecoder()`, one per endpoint type.
    public var decoder: JSONDecoder { DefaultCoders.decoder(for: Self.self) }
    /// A plain `JSONEncoder()`, one per endpoint type.
    public var encoder: JSONEncoder { DefaultCoders.encoder(for: Self.self) }
    /// ``DefaultTransport/shared``: libcurl driven directly on Linux, URLSession on Apple platforms.
    public var transport: any HTTPTransport { DefaultTransport.shared }
    /// No middleware.
    public var middlewares: [any HTTPMiddleware] { [] }
    /// Every option at its default.
    public var options: EndpointOptions { EndpointOptions() }
}

extension HTTPClient where AcceptableStatusCodes == Range<Int> {
    /// `200..<300`.
    public var acceptableStatusCodes: Range<Int> { 200..<300 }
}
