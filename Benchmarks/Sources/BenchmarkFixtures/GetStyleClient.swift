import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The second end-to-end baseline: what a careful developer writes by hand in the style of
/// kean/Get — a small client value with one session of its own and one shared decoder and encoder,
/// one `send` that builds the `URLRequest`, calls `data(for:)`, refuses a status outside 2xx and
/// decodes. Written for these benchmarks (not Get's code); it runs on the same transport as the
/// library's default (URLSession), so the ratio is the library's cost against code a user would
/// otherwise maintain.
public struct GetStyleClient: Sendable {
    /// A status outside 2xx, with the body, as such clients usually report it.
    public struct UnacceptableStatus: Error {
        public var statusCode: Int
        public var body: Data
    }

    /// The one client of a benchmark process, on the benchmark nginx.
    public static let nginx = GetStyleClient(baseURL: URL(string: benchmarkBaseURL))

    private let session: URLSession
    private let baseURL: URL?
    private let decoder: JSONDecoder
    private let encoder: JSONEncoder

    /// Creates a client with a session of its own on the `.default` configuration, as Get does.
    public init(baseURL: URL?) {
        self.baseURL = baseURL
        session = URLSession(configuration: .default)
        decoder = JSONDecoder()
        encoder = JSONEncoder()
    }

    /// Sends `method` to `path` without a body and decodes a `Response`.
    public func send<Response: Decodable>(
        _ path: String, method: String = "GET", headers: [String: String] = [:], as type: Response.Type = Response.self
    ) async throws -> Response {
        try await perform(try makeRequest(path, method: method, headers: headers))
    }

    /// Sends `method` to `path` with `body` encoded as JSON and decodes a `Response`.
    public func send<Response: Decodable>(
        _ path: String, method: String, body: some Encodable, headers: [String: String] = [:],
        as type: Response.Type = Response.self
    ) async throws -> Response {
        var request = try makeRequest(path, method: method, headers: headers)
        request.httpBody = try encoder.encode(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return try await perform(request)
    }

    private func perform<Response: Decodable>(_ request: URLRequest) async throws -> Response {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        guard (200..<300).contains(http.statusCode) else { throw UnacceptableStatus(statusCode: http.statusCode, body: data) }
        return try decoder.decode(Response.self, from: data)
    }

    private func makeRequest(_ path: String, method: String, headers: [String: String]) throws -> URLRequest {
        guard let baseURL, var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw URLError(.badURL)
        }
        components.path = components.path.hasSuffix("/") ? components.path + path : components.path + "/" + path
        guard let url = components.url else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}
