import EndpointRouter
import Foundation

/// A request a testing transport received, with the parts tests usually assert on already taken apart.
///
/// ```swift
/// let sent = try #require(stub.lastRequest)
/// #expect(sent.method == .post)
/// #expect(sent.path == "/todos")
/// #expect(sent.headers["Content-Type"] == "application/json")
/// #expect(try sent.decodeBody(as: NewTodo.self).title == "Write tests")
/// #expect(sent.context.endpointName == "TodoAPI.create")
/// ```
public struct CapturedRequest: Sendable {
    /// The request exactly as the transport received it: after every middleware, the request checks
    /// and, for a redirect hop, the library's rewrite of it.
    public let request: OutgoingRequest
    /// What the library told the transport about the call: `CallContext.endpointName`,
    /// `CallContext.attempt` (2 and up when a middleware retried) and the deadline.
    public let context: CallContext
    /// The method.
    public var method: RequestMethod { request.method }
    /// The full URL, query included.
    public var url: URL { request.url }
    /// The path as sent, still percent-encoded (`/users/john%20doe`); `/` when the URL has none.
    public let path: String
    /// The header fields as the request carries them, in order, with case-insensitive lookup:
    /// `headers["authorization"]`.
    public var headers: HeaderFields { request.headers }
    /// The in-memory body; empty when the request had none or streams a file (see ``bodyFile``).
    public var body: Data { request.bodyData ?? Data() }
    /// The file a `.file` body streams from. It is not read: an upload may be large, and the test
    /// owns the file and can read it if it wants.
    public var bodyFile: URL? {
        if case .file(let file) = request.body { return file }
        return nil
    }
    private let queryPairs: [QueryPair]

    /// Takes `request` apart; `context` is what the transport was handed with it.
    public init(_ request: OutgoingRequest, context: CallContext) {
        self.request = request
        self.context = context
        path = RequestTarget.encodedPath(of: request.url)
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

    /// The in-memory body as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// Decodes the in-memory body, typically the JSON the code under test sent.
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
    var summary: String { RequestTarget.summary(method: method, url: url) }
}

extension CapturedRequest: CustomStringConvertible {
    /// The method and path with query, as in `GET /todos/7?x=1`.
    public var description: String { summary }
}
