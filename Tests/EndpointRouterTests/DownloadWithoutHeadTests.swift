import Foundation
import Testing

@testable import EndpointRouter

/// Downloads through transports that skip parts of the sink protocol (a custom transport that never
/// calls `receive(_:)`, or sends no body), and the completion-handler form of `download(to:)`.
@Suite("Downloads: transports that skip the head, empty bodies, completion handler")
struct DownloadWithoutHeadTests {
    /// A transport that writes `body` into the sink without announcing the head first.
    struct HeadlessTransport: HTTPTransport {
        let status: Int
        let body: Data
        func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
            -> ResponseHead
        {
            if !body.isEmpty { try sink.write(body) }
            return ResponseHead(statusCode: status, url: request.url)
        }
    }

    func destination() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString).bin")
    }

    @Test func anErrorBodyWrittenBeforeTheHeadIsKeptAndNoFileIsLeft() async throws {
        let target = destination()
        let endpoint = TestEndpoint(endpoint: "file", transport: HeadlessTransport(status: 500, body: Data("broken".utf8)))
        let result = await endpoint.download(to: target)
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode, got \(result)")
            return
        }
        #expect(response.statusCode == 500)
        #expect(response.data == Data("broken".utf8))
        #expect(!FileManager.default.fileExists(atPath: target.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(!leftovers.contains { $0.contains(target.lastPathComponent) }, "no partial file next to the destination")
    }

    @Test func anAcceptableResponseWithNoBodyIsAnEmptyFile() async throws {
        let target = destination()
        defer { try? FileManager.default.removeItem(at: target) }
        let endpoint = TestEndpoint(endpoint: "file", transport: HeadlessTransport(status: 200, body: Data()))
        let response = try await endpoint.download(to: target).get()
        #expect(response.value == target)
        #expect(try Data(contentsOf: target).isEmpty)
    }

    @Test func anUnacceptableResponseWithNoBodyFailsWithAnEmptyBody() async throws {
        let target = destination()
        let endpoint = TestEndpoint(endpoint: "file", transport: HeadlessTransport(status: 404, body: Data()))
        let result = await endpoint.download(to: target)
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode, got \(result)")
            return
        }
        #expect(response.statusCode == 404)
        #expect(response.data.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }
}
