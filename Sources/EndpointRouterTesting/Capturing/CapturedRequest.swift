import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import EndpointRouter

/// A request a testing transport received, with the parts tests usually assert on already taken apart.
///
/// ```swift
/// let sent = try #require(stub.lastRequest)
/// #expect(sent.method == "POST")
/// #expect(sent.path == "/todos")
/// #expect(sent.headers["Content-Type"] == "application/json")
/// #expect(try sent.decodeBody(as: NewTodo.self).title == "Write tests")
/// ```
public struct CapturedRequest: Sendable {
    /// The request exactly as the transport received it, after every middleware.
    public let request: URLRequest
    /// The full URL, query included.
    public var url: URL? { request.url }
    /// The method, such as `"GET"`.
    public let method: String
    /// The path as sent, still percent-encoded (`/users/john%20doe`); `/` when the URL has none.
    public let path: String
    /// The headers, with case-insensitive lookup: `headers["authorization"]`.
    public let headers: HTTPHeaders
    /// The body; empty when the request had none.
    public let body: Data
    private let queryPairs: [QueryPair]

    /// Takes `request` apart.
    public init(_ request: URLRequest) {
        self.request = request
        method = request.httpMethod ?? "GET"
        path = RequestTarget.encodedPath(of: request.url)
        headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        body = request.httpBody ?? Data()
        queryPairs = RequestTarget.queryPairs(RequestTarget.encodedQuery(of: request.url))
    }

    /// The query items, percent-decoded (`+` reads as a space); for a name given more than once the
    /// last value wins. Read every value with ``queryValues(for:)``.
    public var queryItems: [String: String] {
        Dictionary(queryPairs.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Every value of the query item `name`, in order: `["1", "2"]` for `ids[]=1&ids[]=2`.
    public func queryValues(for name: String) -> [String] {
        queryPairs.filter { $0.name == name }.map(\.value)
    }

    /// The body as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// Decodes the body, typically the JSON the code under test sent.
    ///
    /// ```swift
    /// let sent = try stub.lastRequest?.decodeBody(as: NewTodo.self)
    /// ```
    ///
    /// - Throws: the decoder's `DecodingError`, which names the failing field.
    public func decodeBody<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }

    /// `GET /todos/7?x=1`.
    var summary: String { RequestTarget.summary(method: method, url: request.url) }
}

extension CapturedRequest: CustomStringConvertible {
    /// The method and path with query, as in `GET /todos/7?x=1`.
    public var description: String { summary }
}
