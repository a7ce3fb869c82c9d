import EndpointRouter
import Foundation

/// The request a ``StubTransport`` answers, with the values the matching route's path pattern
/// captured.
///
/// ```swift
/// stub.on(.get, "/todos/:id") { request in
///     guard let id = Int(request.parameters["id"] ?? "") else { return .status(400) }
///     return .json(Todo(id: id, title: "Todo \(id)"))
/// }
/// ```
public struct StubbedRequest: Sendable {
    /// The values of the pattern's `:name` segments, percent-decoded; the rest of the path matched by
    /// a final `*` is under `"*"`. Empty for the handler of ``StubTransport/init(_:)``.
    public let parameters: [String: String]
    /// The request taken apart: method, path, headers, body and query items.
    public let captured: CapturedRequest

    init(_ captured: CapturedRequest, parameters: [String: String]) {
        self.parameters = parameters
        self.captured = captured
    }

    /// The request as the transport received it, after every middleware.
    public var request: OutgoingRequest { captured.request }
    /// Which endpoint and which attempt the request belongs to, and its deadline.
    public var context: CallContext { captured.context }
    /// The method.
    public var method: RequestMethod { captured.method }
    /// The full URL, query included.
    public var url: URL { captured.url }
    /// The path as sent, still percent-encoded; see ``CapturedRequest/path``.
    public var path: String { captured.path }
    /// The header fields in order, with case-insensitive lookup.
    public var headers: HeaderFields { captured.headers }
    /// The in-memory body; empty when the request had none or streams a file.
    public var body: Data { captured.body }
    /// The file a `.file` body streams from, not read; see ``CapturedRequest/bodyFile``.
    public var bodyFile: URL? { captured.bodyFile }
    /// The query items, percent-decoded; see ``CapturedRequest/queryItems``.
    public var queryItems: [String: String] { captured.queryItems }

    /// Decodes the JSON body, to answer based on what the client sent.
    ///
    /// ```swift
    /// stub.on(.post, "/todos") { request in
    ///     guard let new = try? request.decodeBody(as: NewTodo.self) else { return .status(400) }
    ///     return .json(Todo(id: 201, title: new.title), status: 201)
    /// }
    /// ```
    public func decodeBody<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try captured.decodeBody(as: type, decoder: decoder)
    }
}
