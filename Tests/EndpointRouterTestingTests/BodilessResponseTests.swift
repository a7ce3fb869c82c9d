import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// A response to HEAD, and any 1xx, 204 or 304, has no body whatever its `Content-Length` says
/// (RFC 9110 §6.4.1, §8.6; RFC 9112 §6.3): "HEAD to learn the size" must not fail with
/// `.responseTooLarge` on an endpoint with a small `maxResponseSize`, and the caller still reads
/// the announced size from the headers (issue 39, item 7). Through every transport the conformance
/// suites use, with the whole pipeline (the library's own sinks), since that is where the size was
/// checked.
@Suite("Bodiless responses announcing a large Content-Length", .serialized)
struct BodilessResponseTests {
    typealias Scenario = TransportUnderTest.Scenario

    /// 10 GiB: far over any memory limit, and over `Int32`.
    static let tenGiB = "10737418240"

    static let headForSize = Scenario(
        method: .head, target: "/archive",
        answer: .respond(status: 200, headers: ["Content-Length": tenGiB, "X-Test": "a"], body: .bytes(Data())))
    static let notModified = Scenario(
        target: "/cached",
        answer: .respond(status: 304, headers: ["Content-Length": tenGiB, "ETag": "\"v1\""], body: .bytes(Data())))

    /// An endpoint that takes at most 1 KiB into memory and accepts a 304 as an answer.
    struct SizedEndpoint: HTTPClient {
        var host: String
        var endpoint: String
        var method: RequestMethod = .get
        var headers: [String: String]? = nil
        var timeout: TimeInterval? { 10 }
        var maxResponseSize: Int? { 1024 }
        var acceptableStatusCodes: Range<Int> { 200..<400 }
    }

    /// The rule itself: the size a sink will receive, per method and status.
    @Test(
        "The body a sink receives: none for HEAD, 1xx, 204, 304; otherwise what Content-Length says",
        arguments: [
            (RequestMethod.head, 200, Int64?.some(0)), (.get, 304, 0), (.get, 204, 0), (.get, 100, 0), (.get, 199, 0),
            (.post, 204, 0), (.head, 404, 0), (.get, 200, 10_737_418_240), (.post, 201, 10_737_418_240),
            (.get, 404, 10_737_418_240), (.get, 205, 10_737_418_240),
        ])
    func theExpectedBodyLength(_ method: RequestMethod, _ status: Int, _ expected: Int64?) {
        let head = ResponseHead(statusCode: status, headers: ["Content-Length": Self.tenGiB])
        #expect(head.expectedBodyLength(answering: method) == expected)
        #expect(ResponseHead.hasBody(statusCode: status, answering: method) == (expected != 0))
        #expect(head.expectedBodyLength == 10_737_418_240, "the field itself is still read as announced")
        let unknown = ResponseHead(statusCode: status, headers: ["Content-Encoding": "gzip"])
        #expect(unknown.expectedBodyLength(answering: method) == (expected == 0 ? 0 : nil))
    }

    @Test("HEAD announcing 10 GiB succeeds with an empty body and the length in the headers", arguments: TransportUnderTest.all)
    func headAnnouncingTenGiB(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([Self.headForSize]) { served in
            let endpoint = SizedEndpoint(host: served.baseURL, endpoint: "archive", method: .head)
            let transport = served.transport
            let result = try #require(await bounded(15) { await withTransport(transport) { await endpoint.response(type: Data.self) } })
            let response = try result.get()
            #expect(response.statusCode == 200)
            #expect(response.data.isEmpty)
            #expect(response.headers["Content-Length"] == Self.tenGiB)
            #expect(response.headers["X-Test"] == "a")
        }
    }

    @Test("304 announcing 10 GiB succeeds with an empty body and the length in the headers", arguments: TransportUnderTest.all)
    func notModifiedAnnouncingTenGiB(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([Self.notModified]) { served in
            let endpoint = SizedEndpoint(host: served.baseURL, endpoint: "cached", headers: ["If-None-Match": "\"v1\""])
            let transport = served.transport
            let result = try #require(await bounded(15) { await withTransport(transport) { await endpoint.response(type: Data.self) } })
            let response = try result.get()
            #expect(response.statusCode == 304)
            #expect(response.data.isEmpty)
            #expect(response.headers["Content-Length"] == Self.tenGiB)
        }
    }

    /// A download of a HEAD saves an empty file, and its progress never announces the 10 GiB the
    /// headers describe: nothing of them will arrive.
    @Test("download(to:) of a HEAD announcing 10 GiB saves an empty file", arguments: TransportUnderTest.all)
    func downloadOfAHead(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([Self.headForSize]) { served in
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("archive.bin")
                let endpoint = SizedEndpoint(host: served.baseURL, endpoint: "archive", method: .head)
                let transport = served.transport
                let reports = Locked<[TransferProgress]>([])
                let result = try #require(
                    await bounded(15) {
                        await withTransport(transport) {
                            await endpoint.download(to: destination) { progress in reports.withLock { $0.append(progress) } }
                        }
                    })
                let response = try result.get()
                #expect(response.value == destination)
                #expect(response.headers["Content-Length"] == Self.tenGiB)
                #expect(try Data(contentsOf: destination).isEmpty)
                let seen = reports.withLock { $0 }
                #expect(seen.allSatisfy { $0.completedBytes == 0 && ($0.expectedBytes ?? 0) == 0 }, "\(seen)")
            }
        }
    }
}
