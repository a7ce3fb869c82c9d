import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Record once from a real HTTP server (in-process, on 127.0.0.1) through the real transport, then
/// replay offline: the answers must be byte-identical and no secret may reach the files.
@Suite("Record a real server, replay offline")
struct RecordRealServerTests {
    struct Secured: HTTPClient {
        let host: String
        var token = "TOKEN-SECRET-1"
        var endpoint: String { "v1/items" }
        var parameters: [String: Any]? { ["page": 2, "api_key": "QUERY-SECRET-1"] }
        var headers: [String: String]? { ["Authorization": "Bearer \(token)", "Cookie": "sid=COOKIE-SECRET-1"] }
    }

    @Test func recordsThroughURLSessionAndReplaysByteIdentical() async throws {
        let payload = Data(#"{"items":[1,2,3],"note":"ü ✓"}"#.utf8)
        let server = try TestServer(
            response: .status(
                200,
                headers: [
                    ("Content-Type", "application/json"),
                    ("Set-Cookie", "sid=SETCOOKIE-SECRET-1; Path=/"),
                    ("X-Request-Id", "abc"),
                ], body: payload))
        defer { server.stop() }
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(
                wrapping: URLSessionTransport.shared, directory: directory,
                redactingQueryKeys: ["api_key"])
            let live = try await withTransport(recorder) {
                try await Secured(host: server.baseURL).response(type: Data.self).get()
            }
            #expect(live.data == payload)
            #expect(server.requests.first?.header("Authorization") == "Bearer TOKEN-SECRET-1")

            // Offline: the server is gone, and the token differs, as it would on another day.
            server.stop()
            let replayed = try await withTransport(ReplayTransport(directory: directory)) {
                try await Secured(host: server.baseURL, token: "TOKEN-SECRET-2").response(type: Data.self).get()
            }
            #expect(replayed.data == live.data)
            #expect(replayed.statusCode == 200)
            #expect(replayed.headers["X-Request-Id"] == "abc")

            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.contains("SECRET"), "\(file) leaks a secret:\n\(text)")
                #expect(text.contains("ü ✓"), "the body should be stored as readable text")
            }
        }
    }
}
