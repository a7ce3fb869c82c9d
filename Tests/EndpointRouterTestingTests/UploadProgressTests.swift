import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Upload progress from `StubTransport` and `ReplayTransport` (issue 40, item 4): the caller's
/// `response(type:uploadProgress:)` closure sees what the real transports make it see, so an upload UI can
/// be tested offline. Data bodies go through every transport the conformance suites use, the live
/// ones included, to hold the testing transports to the real ones; file and multipart bodies
/// through a stub and through a replay of what a recording of that stub wrote.
@Suite("Upload progress from testing transports")
struct UploadProgressTests {
    typealias Scenario = TransportUnderTest.Scenario

    /// A POST of `body` to `/upload`, answered `ok`.
    struct UploadEndpoint: HTTPClient {
        var host: String
        var body: EndpointBody?
        var endpoint: String { "upload" }
        var method: RequestMethod { .post }
        var timeout: TimeInterval? { 15 }
    }

    /// Several pieces of 64 KiB, and a last piece shorter than the others.
    static let largeBody = payload(5 * 64 * 1024 + 1000)

    static func scenario(sending body: Data) -> Scenario {
        Scenario(
            method: .post, target: "/upload", requestBody: body, answer: .respond(status: 200, headers: [:], body: .bytes(Data("ok".utf8))))
    }

    /// The values the progress closure saw while `endpoint` uploaded through `transport`.
    static func progress(of endpoint: UploadEndpoint, through transport: any HTTPTransport) async throws -> [TransferProgress] {
        let reports = Locked<[TransferProgress]>([])
        let result = try #require(
            await bounded(15) {
                await withTransport(transport) {
                    await endpoint.response(type: Data.self) { progress in reports.withLock { $0.append(progress) } }
                }
            })
        #expect(try result.get().value == Data("ok".utf8))
        return reports.withLock { $0 }
    }

    /// What a finished upload of `length` bytes shows: values that never go back, each out of the
    /// whole length, the last the whole length.
    static func expectComplete(_ reports: [TransferProgress], length: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let sent = reports.map(\.completedBytes)
        #expect(sent == sent.sorted(), "\(reports)", sourceLocation: sourceLocation)
        #expect(reports.allSatisfy { $0.expectedBytes == Int64(length) }, "\(reports)", sourceLocation: sourceLocation)
        #expect(reports.last?.completedBytes == Int64(length), "\(reports)", sourceLocation: sourceLocation)
    }

    @Test("A data body's progress ends at its whole length, out of it", arguments: TransportUnderTest.all)
    func aDataBody(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([Self.scenario(sending: Self.largeBody)]) { served in
            let endpoint = UploadEndpoint(host: served.baseURL, body: .data(Self.largeBody, contentType: "application/octet-stream"))
            Self.expectComplete(try await Self.progress(of: endpoint, through: served.transport), length: Self.largeBody.count)
        }
    }

    /// `URLSessionTransport` is told of no body data sent and reports nothing; `CurlTransport`
    /// reports 0 of 0 once. The testing transports do as the former: a closure that needs a report
    /// to show "done" fails offline as it would with URLSession.
    @Test("An empty body reports no bytes sent; the testing transports report nothing", arguments: TransportUnderTest.all)
    func anEmptyBody(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([Self.scenario(sending: Data())]) { served in
            let endpoint = UploadEndpoint(host: served.baseURL, body: .data(Data(), contentType: "application/octet-stream"))
            let reports = try await Self.progress(of: endpoint, through: served.transport)
            #expect(reports.allSatisfy { $0.completedBytes == 0 && ($0.expectedBytes ?? 0) == 0 }, "\(reports)")
            if case .live = kind.engine {} else { #expect(reports.isEmpty, "\(reports)") }
        }
    }

    /// Where an offline upload is answered: a stub, or a replay of what recording that stub wrote.
    enum Offline: String, CaseIterable, CustomTestStringConvertible {
        case stub, replay
        var testDescription: String { rawValue }
    }

    static let offlineHost = "https://uploads.example.com"

    /// The progress closure's values for an upload of `body` answered offline, and the body the
    /// transport received (empty for a file, which is not read).
    static func offlineProgress(_ offline: Offline, body: EndpointBody) async throws -> (reports: [TransferProgress], received: Data?) {
        let endpoint = UploadEndpoint(host: offlineHost, body: body)
        let stub = StubTransport().on(.post, "/upload", respond: .text("ok"))
        guard offline == .replay else {
            return (try await progress(of: endpoint, through: stub), stub.lastRequest?.body)
        }
        return try await withTemporaryDirectory { recordings in
            let recorder = RecordingTransport(wrapping: stub, directory: recordings)
            _ = try await progress(of: endpoint, through: recorder)
            await recorder.waitForRecordings()
            let replay = ReplayTransport(directory: recordings)
            return (try await progress(of: endpoint, through: replay), replay.lastRequest?.body)
        }
    }

    @Test("A file body's progress counts its size on disk", arguments: Offline.allCases)
    func aFileBody(_ offline: Offline) async throws {
        try await withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("video.bin")
            try payload(200_000).write(to: file)
            let (reports, _) = try await Self.offlineProgress(offline, body: .file(file, contentType: "video/mp4"))
            Self.expectComplete(reports, length: 200_000)
        }
    }

    @Test("A multipart body's progress counts the whole encoded form", arguments: Offline.allCases)
    func aMultipartBody(_ offline: Offline) async throws {
        var form = MultipartFormData()
        form.append("Beach", name: "title")
        form.append(payload(150_000), name: "photo", fileName: "beach.jpg", mimeType: "image/jpeg")
        let (reports, received) = try await Self.offlineProgress(offline, body: .multipart(form))
        let length = try #require(received?.count)
        #expect(length > 150_000)
        Self.expectComplete(reports, length: length)
    }

    /// A failure answer stands for a connection that never carried the body.
    @Test func aStubbedFailureReportsNoProgress() async throws {
        let stub = StubTransport().on(.post, "/upload", respond: .urlError(.notConnectedToInternet))
        let reports = Locked<[TransferProgress]>([])
        let endpoint = UploadEndpoint(host: Self.offlineHost, body: .data(Self.largeBody, contentType: "application/octet-stream"))
        let result = await bounded {
            await withTransport(stub) { await endpoint.response(type: Data.self) { p in reports.withLock { $0.append(p) } } }
        }
        guard case .failure(let error)? = result else {
            Issue.record("the upload did not fail: \(String(describing: result))")
            return
        }
        #expect(error.urlError?.code == .notConnectedToInternet)
        #expect(reports.withLock { $0 }.isEmpty)
    }
}
