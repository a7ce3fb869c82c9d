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

    struct Plain: HTTPClient {
        let host: String
        var endpoint: String { "v1/shape" }
        var method: RequestMethod = .get
    }

    /// Whatever shape the live response had, its replay gives the caller the same status, the same
    /// header fields (names, values, order) and the same body. A gzip body is the hard one: the
    /// transport hands over the decompressed bytes with the wire's `Content-Length` (219 here, of a
    /// 303-byte body), which the replay must keep rather than "correct".
    @Test(arguments: ["gzip", "plain", "chunked", "head"]) func replayGivesWhatTheLiveResponseGave(_ shape: String) async throws {
        let payload = Data((#"{"items":["# + (0..<40).map { #""item \#($0)""# }.joined(separator: ",") + "]}").utf8)
        let json = ("Content-Type", "application/json")
        let response: ScriptedResponse =
            switch shape {
            case "gzip": .gzipEncoded(try ScriptedResponse.gzipCompressed(payload), headers: [json])
            case "chunked": .stream(headers: [json], chunk: 1000, total: 5000)
            default: .status(200, headers: [json], body: payload)
            }
        let server = try TestServer(response: response)
        defer { server.stop() }
        let endpoint = Plain(host: server.baseURL, method: shape == "head" ? .head : .get)
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: URLSessionTransport(), directory: directory)
            let live = try await withTransport(recorder) { try await endpoint.response(type: Data.self).get() }
            server.stop()
            let replayed = try await withTransport(ReplayTransport(directory: directory)) {
                try await endpoint.response(type: Data.self).get()
            }
            #expect(replayed.statusCode == live.statusCode)
            #expect(replayed.headers == live.headers, "live:\n\(live.headers)\nreplayed:\n\(replayed.headers)")
            #expect(replayed.data == live.data)
            if shape == "gzip" {
                // The case this test is for: the wire's length of the compressed body, not the body's.
                #expect(live.headers["Content-Encoding"] == "gzip")
                #expect(live.headers["Content-Length"].flatMap(Int.init) != live.data.count)
            }
        }
    }
}
