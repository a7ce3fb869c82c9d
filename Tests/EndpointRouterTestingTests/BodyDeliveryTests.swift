import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// Cancels the task it is called on at the first piece of the body, to show that a transport checks
/// for cancellation between pieces.
final class CancellingSink: ResponseBodySink {
    private let writes = Locked(0)

    func receive(_ head: ResponseHead) throws(HTTPClientError) {}

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        writes.withLock { $0 += 1 }
        withUnsafeCurrentTask { $0?.cancel() }
    }

    var writeCount: Int { writes.withLock { $0 } }
}

/// A transport that breaks the contract: it goes on writing after the sink refused, and answers as
/// if nothing happened.
struct SwallowingTransport: HTTPTransport {
    let body: Data

    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        let head = ResponseHead(statusCode: 200, url: request.url)
        try? sink.receive(head)
        for start in stride(from: 0, to: body.count, by: 1024) {
            try? sink.write(body[start..<min(start + 1024, body.count)])
        }
        return head
    }
}

@Suite("Bodies delivered into the library's sink")
struct BodyDeliveryTests {
    private static let megabyte = payload(1024 * 1024)
    private static let url = "https://files.example.com/archive.bin"

    @Test func aStubBodyOverMaxResponseSizeFailsWithResponseTooLarge() async {
        let stub = StubTransport().on(.get, "/archive.bin", respond: .data(Self.megabyte))
        let result = await withTransport(stub) { await FilesAPI.limited(maxResponseSize: 65536).request(type: Data.self) }
        #expect(result == .failure(.responseTooLarge(limit: 65536)))
    }

    @Test func anAnnouncedLengthOverTheLimitIsRefusedBeforeTheBody() async {
        let stub = StubTransport().on(
            .get, "/archive.bin",
            respond: .data(Self.megabyte, headers: ["Content-Length": "\(Self.megabyte.count)"]))
        let result = await withTransport(stub) { await FilesAPI.limited(maxResponseSize: 65536).request(type: Data.self) }
        #expect(result == .failure(.responseTooLarge(limit: 65536)))
    }

    @Test func aBodyExactlyAtTheLimitArrivesWhole() async throws {
        let body = payload(65536)
        let stub = StubTransport().on(.get, "/archive.bin", respond: .data(body))
        let data = try await withTransport(stub) { try await FilesAPI.limited(maxResponseSize: 65536).request(type: Data.self).get() }
        #expect(data == body)
    }

    @Test func aLargeBodyArrivesWholeInPieces() async throws {
        let stub = StubTransport().on(.get, "/archive.bin", respond: .data(Self.megabyte))
        let response = try await withTransport(stub) { try await FilesAPI.archive.response(type: Data.self).get() }
        #expect(response.data == Self.megabyte)
    }

    @Test func theStubStopsAtTheFirstPieceTheSinkRefuses() async throws {
        let stub = StubTransport().on(nil, "*", respond: .data(Self.megabyte))
        let request = try makeRequest(.get, Self.url)
        let sink = RefusingSink(limit: 100 * 1024)
        let error = await bounded { await sendError(stub, request, into: sink) }
        #expect(error == .responseTooLarge(limit: 100 * 1024))
        #expect(sink.writes == 2, "one piece of 64 KiB accepted, the next refused, nothing after")
        #expect(sink.accepted == Self.megabyte.prefix(64 * 1024))
    }

    @Test func replayStopsAtTheFirstPieceTheSinkRefuses() async throws {
        try await withTemporaryDirectory { directory in
            let request = try makeRequest(.get, Self.url)
            let server = StubTransport().on(nil, "*", respond: .data(Self.megabyte))
            _ = try await RecordingTransport(wrapping: server, directory: directory).exchange(request)

            let sink = RefusingSink(limit: 100 * 1024)
            let error = await bounded { await sendError(ReplayTransport(directory: directory), request, into: sink) }
            #expect(error == .responseTooLarge(limit: 100 * 1024))
            #expect(sink.writes == 2)
        }
    }

    @Test func recordingPassesTheRefusalOnAndRecordsNothing() async throws {
        try await withTemporaryDirectory { directory in
            let server = StubTransport().on(nil, "*", respond: .data(Self.megabyte))
            let recorder = RecordingTransport(wrapping: server, directory: directory)
            let request = try makeRequest(.get, Self.url)
            let sink = RefusingSink(limit: 100 * 1024)
            let error = await bounded { await sendError(recorder, request, into: sink) }
            #expect(error == .responseTooLarge(limit: 100 * 1024))
            #expect(sink.writes == 2, "the wrapped transport stopped too")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            #expect(files.isEmpty, "a body the library refused is not a recording")
        }
    }

    @Test func recordingRecordsNothingWhenTheWrappedTransportIgnoresARefusal() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: SwallowingTransport(body: Self.megabyte), directory: directory)
            let request = try makeRequest(.get, Self.url)
            let sink = RefusingSink(limit: 100 * 1024)
            let error = await bounded { await sendError(recorder, request, into: sink) }
            #expect(error == .responseTooLarge(limit: 100 * 1024), "the refusal is not lost")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            #expect(files.isEmpty, "a truncated body is not recorded as the answer")
        }
    }

    @Test func recordingThroughTheClientOverTheLimitRecordsNothing() async throws {
        try await withTemporaryDirectory { directory in
            let server = StubTransport().on(.get, "/archive.bin", respond: .data(Self.megabyte))
            let recorder = RecordingTransport(wrapping: server, directory: directory)
            let result = await withTransport(recorder) { await FilesAPI.limited(maxResponseSize: 65536).request(type: Data.self) }
            #expect(result == .failure(.responseTooLarge(limit: 65536)))
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.isEmpty)
        }
    }

    @Test func theStubChecksForCancellationBetweenPieces() async throws {
        let stub = StubTransport().on(nil, "*", respond: .data(Self.megabyte))
        let request = try makeRequest(.get, Self.url)
        let sink = CancellingSink()
        let error = await bounded { await sendError(stub, request, into: sink) }
        #expect(error == .cancelled)
        #expect(sink.writeCount == 1)
    }
}
