import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// Collects progress reports from any thread.
final class ProgressLog: Sendable {
    private let reports = Locked<[TransferProgress]>([])

    var handler: @Sendable (TransferProgress) -> Void {
        { report in self.reports.withLock { $0.append(report) } }
    }

    var all: [TransferProgress] { reports.withLock { $0 } }

    /// Never backwards, and ending at `total` of `total`.
    func isMonotonic(endingAt total: Int) -> Bool {
        let all = self.all
        return zip(all, all.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }
            && all.last == TransferProgress(completedBytes: Int64(total), expectedBytes: Int64(total))
    }
}

@Suite("Downloads through the testing transports")
struct DownloadTests {
    private static let archive = payload(300 * 1024 + 17)
    private static let errorBody = Data(#"{"error":"not_found","message":"No such file"}"#.utf8)

    private static func server() -> StubTransport {
        StubTransport()
            .on(.get, "/archive.bin", respond: .data(archive, headers: ["Content-Type": "application/octet-stream"]))
            .on(.get, "/missing.bin", respond: .data(errorBody, status: 404, headers: ["Content-Type": "application/json"]))
    }

    /// Downloads `endpoint` through `transport` into `directory`.
    private static func download(
        _ endpoint: FilesAPI, through transport: any HTTPTransport, into directory: URL, name: String = "archive.bin"
    ) async -> (result: Result<EndpointResponse<URL>, HTTPClientError>, destination: URL, progress: ProgressLog) {
        let destination = directory.appendingPathComponent(name)
        let progress = ProgressLog()
        let result = await withTransport(transport) {
            await endpoint.download(to: destination, progress: progress.handler)
        }
        return (result, destination, progress)
    }

    @Test func theStubsBytesLandInTheFileWithProgress() async throws {
        try await withTemporaryDirectory { directory in
            let (result, destination, progress) = await Self.download(.archive, through: Self.server(), into: directory)
            #expect(try result.get().value == destination)
            let written = try Data(contentsOf: destination)
            #expect(written == Self.archive)
            #expect(progress.isMonotonic(endingAt: Self.archive.count), "\(progress.all)")
            // Reports coalesce while the closure runs, so their number is not the pieces' (those
            // are counted by conformance test 3, for the stub and the replay); the last is the total.
            #expect(!progress.all.isEmpty)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files == ["archive.bin"], "no temporary file is left behind")
        }
    }

    @Test func aContentLengthGivesProgressItsTotalFromTheStart() async throws {
        let stub = StubTransport().on(
            .get, "/archive.bin",
            respond: .data(Self.archive, headers: ["Content-Length": "\(Self.archive.count)"]))
        try await withTemporaryDirectory { directory in
            let (result, destination, progress) = await Self.download(.archive, through: stub, into: directory)
            #expect(throws: Never.self) { try result.get() }
            let written = try Data(contentsOf: destination)
            #expect(written == Self.archive)
            #expect(progress.all.allSatisfy { $0.expectedBytes == Int64(Self.archive.count) })
            #expect(progress.isMonotonic(endingAt: Self.archive.count))
        }
    }

    @Test func a404StubLeavesNoFileAndCarriesTheErrorBody() async throws {
        try await withTemporaryDirectory { directory in
            let (result, destination, _) = await Self.download(.missing, through: Self.server(), into: directory)
            Self.expectNotFound(result)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.isEmpty)
        }
    }

    @Test func recordingAndReplayServeDownloads() async throws {
        try await withTemporaryDirectory { directory in
            let recordings = directory.appendingPathComponent("recordings")
            let server = Self.server()
            let recorder = RecordingTransport(wrapping: server, directory: recordings)

            let live = await Self.download(.archive, through: recorder, into: directory, name: "live.bin")
            let liveBytes = try Data(contentsOf: live.destination)
            #expect(liveBytes == Self.archive)
            #expect(live.progress.isMonotonic(endingAt: Self.archive.count))
            let liveMissing = await Self.download(.missing, through: recorder, into: directory, name: "live-missing.bin")
            Self.expectNotFound(liveMissing.result)
            let recorded = try FileManager.default.contentsOfDirectory(atPath: recordings.path)
            #expect(recorded.count == 2)
            #expect(recorder.requestCount == 2)

            let replay = ReplayTransport(directory: recordings)
            let replayed = await Self.download(.archive, through: replay, into: directory, name: "replayed.bin")
            let replayedBytes = try Data(contentsOf: replayed.destination)
            #expect(replayedBytes == Self.archive)
            #expect(replayed.progress.isMonotonic(endingAt: Self.archive.count))
            #expect(!replayed.progress.all.isEmpty, "reports coalesce; the last is the total")
            let replayedMissing = await Self.download(.missing, through: replay, into: directory, name: "replayed-missing.bin")
            Self.expectNotFound(replayedMissing.result)
            #expect(!FileManager.default.fileExists(atPath: replayedMissing.destination.path))

            #expect(server.requestCount == 2, "the replay did not reach the server")
            #expect(replay.requestCount == 2)
        }
    }

    private static func expectNotFound(
        _ result: Result<EndpointResponse<URL>, HTTPClientError>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode, got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(response.statusCode == 404, sourceLocation: sourceLocation)
        #expect(response.data == errorBody, sourceLocation: sourceLocation)
    }
}
