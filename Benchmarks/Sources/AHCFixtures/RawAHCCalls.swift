import AsyncHTTPClient
import BenchmarkFixtures
import Foundation
import NIOCore
import NIOFoundationCompat

/// The hand-written AsyncHTTPClient baseline: `execute` on the `HTTPClient` it is given, the body
/// collected, the status checked, one shared `JSONDecoder`. Scenario 5 (`AHCTransport`) gives it
/// `HTTPClient.shared`; the load benchmark (`Load`'s `ahc-tuned` side) a client of its own.
public struct RawAHCCalls: Sendable {
    /// The client every call goes through.
    public let client: AsyncHTTPClient.HTTPClient

    /// Larger than the largest fixture (list5000.json, 475 KB).
    public static let maximumBody = 8 * 1024 * 1024
    static let decoder = JSONDecoder()
    static let encoder = JSONEncoder()

    /// Calls made through `client`.
    public init(client: AsyncHTTPClient.HTTPClient) {
        self.client = client
    }

    /// GETs `endpoint`'s path and decodes `T`.
    public func get<T: Decodable>(_ endpoint: NginxAPI, as type: T.Type) async throws -> T {
        let request = HTTPClientRequest(url: "\(benchmarkBaseURL)/\(NginxAPI.paths[endpoint])")
        return try await decode(T.self, from: request, expecting: 200)
    }

    /// POSTs the 60-byte JSON body to `/todos` and decodes the created ``Todo``.
    public func create() async throws -> Todo {
        var request = HTTPClientRequest(url: "\(benchmarkBaseURL)/todos")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try Self.encoder.encode(NewTodo())))
        return try await decode(Todo.self, from: request, expecting: 201)
    }

    private func decode<T: Decodable>(_ type: T.Type, from request: HTTPClientRequest, expecting status: UInt) async throws -> T {
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: Self.maximumBody)
        guard response.status.code == status else { throw URLError(.badServerResponse) }
        return try Self.decoder.decode(T.self, from: body)
    }
}
