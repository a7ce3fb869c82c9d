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
///     var method: HTTPMethod { if case .create = self { .post } else { .get } }
///     var parameters: [String: Any]? {
///         if case .list(let userId?) = self { ["userId": userId] } else { nil }
///     }
///     var body: RequestBody? { if case .create(let todo) = self { .json(todo) } else { nil } }
/// }
///
/// let todos = await TodoAPI.list(userId: 1).request(type: [Todo].self)   // Result<[Todo], HTTPClientError>
/// ```
///
/// A request flows one way: the endpoint builds a `URLRequest` (``makeURLRequest()``), the
/// ``middlewares`` see it in order, the ``transport`` sends it, and the response is validated against
/// ``acceptableStatusCodes`` and decoded with ``decoder``.
public protocol HTTPClient {
    /// The server, with scheme and optionally a port and base path: `"https://api.example.com:8443/api"`.
    var host: String { get }
    /// A path between host and endpoint, such as an API version: `"/v2"`. Defaults to `""`.
    var path: String { get }
    /// The endpoint's own path, optionally with a query: `"todos/\(segment: id)"`, `"todos?userId=1"`.
    var endpoint: String { get }
    /// The method. Defaults to `.get`.
    var method: HTTPMethod { get }
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
    var body: RequestBody? { get }
    /// A total deadline in seconds for the whole exchange, redirects included; sub-second values
    /// work. Defaults to `nil`: the transport's default (60 s for ``URLSessionTransport``).
    var timeout: TimeInterval? { get }
    /// Statuses that count as success; anything else is `.unacceptableStatusCode`. Defaults to `200..<300`.
    var acceptableStatusCodes: Range<Int> { get }
    /// Decodes response bodies. Defaults to `JSONDecoder()`.
    var decoder: JSONDecoder { get }
    /// Encodes `.json` bodies. Defaults to `JSONEncoder()`.
    var encoder: JSONEncoder { get }
    /// What sends the request. Defaults to ``URLSessionTransport/shared``; tests plug in a stub.
    var transport: any HTTPTransport { get }
    /// Steps between building and sending: authentication, retries, logging. Defaults to none.
    var middlewares: [any HTTPMiddleware] { get }
}

extension HTTPClient {
    /// `""`: no path between host and endpoint.
    public var path: String { "" }
    /// `.get`.
    public var method: HTTPMethod { .get }
    /// `nil`: no parameters.
    public var parameters: [String: Any]? { nil }
    /// `nil`: only the default headers.
    public var headers: [String: String]? { nil }
    /// `.automatic`: query for GET-like methods, JSON otherwise.
    public var parameterEncoding: ParameterEncoding { .automatic }
    /// Brackets for arrays, `true`/`false` for booleans.
    public var queryStyle: QueryStyle { .default }
    /// `nil`: no explicit body.
    public var body: RequestBody? { nil }
    /// `nil`: the transport's default deadline.
    public var timeout: TimeInterval? { nil }
    /// `200..<300`.
    public var acceptableStatusCodes: Range<Int> { 200..<300 }
    /// A plain `JSONDecoder()`.
    public var decoder: JSONDecoder { JSONDecoder() }
    /// A plain `JSONEncoder()`.
    public var encoder: JSONEncoder { JSONEncoder() }
    /// The library-owned, hardened ``URLSessionTransport/shared``.
    public var transport: any HTTPTransport { URLSessionTransport.shared }
    /// No middleware.
    public var middlewares: [any HTTPMiddleware] { [] }
}
