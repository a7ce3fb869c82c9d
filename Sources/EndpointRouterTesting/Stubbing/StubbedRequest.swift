import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import EndpointRouter

/// The request a ``StubTransport`` route answers, with the values its path pattern captured.
///
/// ```swift
/// stub.on(.get, "/todos/:id") { request in
///     guard let id = Int(request.parameters["id"] ?? "") else { return .status(400) }
///     return .json(Todo(id: id, title: "Todo \(id)"))
/// }
/// ```
public struct StubbedRequest: Sendable {
    /// The request as the transport received it.
    public let request: URLRequest
    /// The values of the pattern's `:name` segments, percent-decoded; the rest of the path matched by
    /// a final `*` is under `"*"`.
    public let parameters: [String: String]
    /// The request taken apart: method, path, headers, body and query items.
    public let captured: CapturedRequest

    init(_ captured: CapturedRequest, parameters: [String: String]) {
        request = captured.request
        self.parameters = parameters
        self.captured = captured
    }

    /// The method, such as `"GET"`.
    public var method: String { captured.method }
    /// The headers, with case-insensitive lookup.
    public var headers: HTTPHeaders { captured.headers }
    /// The body; empty when the request had none.
    public var body: Data { captured.body }
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
