import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Record and replay")
struct RecordReplayTests {
    /// Bytes that are not UTF-8, so they must be stored as base64.
    private static let binary = Data((0..<256).map { UInt8($0) } + [0xFF, 0xFE, 0x00, 0xC3])

    /// A "server" whose answers cover every body shape the file format has to survive.
    private static func server() -> StubTransport {
        StubTransport()
            .on(.get, "/todos", respond: .fixture("todos.json", in: TestPaths.fixtures, headers: ["X-Total-Count": "200"]))
            .on(.get, "/todos", query: ["userId": "1"], respond: .json(#"[{"userId":1,"id":1,"title":"a","completed":false}]"#))
            .on(.post, "/todos", respond: .json(#"{"id":201}"#, status: 201))
            .on(.get, "/image.bin", respond: .data(binary, headers: ["Content-Type": "application/octet-stream"]))
            .on(.get, "/tricky.txt", respond: .text("[base64]\nnot base64 at all"))
            .on(.get, "/crlf.txt", respond: .text("line 1\r\nline 2\r\n\r\n### response\nno final newline"))
            .on(.delete, "/todos/:id", respond: .status(204))
            .on(.get, "/missing", respond: .fixture("error-404.json", in: TestPaths.fixtures, status: 404))
    }

    private static func requests() throws -> [OutgoingRequest] {
        let body = try JSONEncoder().encode(NewTodo(userId: 1, title: "Record me", completed: false))
        return [
            try makeRequest(.get, "https://api.example.com/todos"),
            try makeRequest(.get, "https://api.example.com/todos?userId=1"),
            try makeRequest(.post, "https://api.example.com/todos", headers: ["Content-Type": "application/json"], body: body),
            try makeRequest(.get, "https://api.example.com/image.bin"),
            try makeRequest(.get, "https://api.example.com/tricky.txt"),
            try makeRequest(.get, "https://api.example.com/crlf.txt"),
            try makeRequest(.delete, "https://api.example.com/todos/3"),
            try makeRequest(.get, "https://api.example.com/missing"),
        ]
    }

    @Test func replayServesByteIdenticalResponses() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory)
            var recorded: [IncomingResponse] = []
            for request in try Self.requests() { recorded.append(try await recorder.exchange(request)) }

            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.count == recorded.count)
            #expect(recorder.requestCount == recorded.count)

            let replay = ReplayTransport(directory: directory)
            for (request, original) in zip(try Self.requests(), recorded) {
                let replayed = try await replay.exchange(request)
                #expect(replayed.statusCode == original.statusCode)
                #expect(replayed.body == original.body, "\(request.url.path)")
                #expect(replayed.headers == original.headers)
            }
            #expect(replay.requestCount == recorded.count)
        }
    }

    @Test func roundTripThroughTheClient() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory)
            let live = try await withTransport(recorder) { try await TodoAPI.list(userId: nil).response(type: [Todo].self).get() }
            let replayed = try await withTransport(ReplayTransport(directory: directory)) {
                try await TodoAPI.list(userId: nil).response(type: [Todo].self).get()
            }
            #expect(replayed.value == live.value)
            #expect(replayed.data == live.data)
            #expect(replayed.headers["X-Total-Count"] == "200")
        }
    }

    @Test func fileIsReadableAndNamedByMethodPathAndHash() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory)
            let request = try makeRequest(.delete, "https://api.example.com/todos/3", headers: ["Accept": "application/json"])
            _ = try await recorder.exchange(request)
            let name = recorder.fileName(for: request)
            #expect(name.range(of: #"^DELETE_todos_3_[0-9a-f]{8}\.http$"#, options: .regularExpression) != nil)
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            #expect(
                text == """
                    DELETE https://api.example.com/todos/3 HTTP/1.1
                    Accept: application/json

                    ### response
                    HTTP/1.1 204 No Content


                    """)
        }
    }

    @Test func namesAreStableAndTellRequestsApart() throws {
        let recorder = RecordingTransport(wrapping: StubTransport(), directory: FileManager.default.temporaryDirectory)
        let sortedKeys = try makeRequest(.post, "https://a.example/todos", body: Data(#"{"a":1,"b":[1,2]}"#.utf8))
        let otherOrder = try makeRequest(
            .post, "https://b.example/todos", headers: ["Accept": "x"],
            body: Data(#"{ "b": [1, 2], "a": 1 }"#.utf8))
        let otherBody = try makeRequest(.post, "https://a.example/todos", body: Data(#"{"a":2}"#.utf8))
        let queryOrder1 = try makeRequest(.get, "https://a.example/todos?a=1&b=2")
        let queryOrder2 = try makeRequest(.get, "https://a.example/todos?b=2&a=1")
        let otherQuery = try makeRequest(.get, "https://a.example/todos?a=2&b=2")
        #expect(recorder.fileName(for: sortedKeys) == recorder.fileName(for: otherOrder), "host, headers and key order do not count")
        #expect(recorder.fileName(for: sortedKeys) != recorder.fileName(for: otherBody))
        #expect(recorder.fileName(for: queryOrder1) == recorder.fileName(for: queryOrder2))
        #expect(recorder.fileName(for: queryOrder1) != recorder.fileName(for: otherQuery))
        #expect(recorder.fileName(for: try makeRequest(.get, "https://a.example/")).hasPrefix("GET_root_"))
    }

    @Test func unrecordedRequestNamesTheRequestAndTheExpectedFile() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory)
            _ = try await recorder.exchange(makeRequest(.get, "https://api.example.com/todos"))
            let unrecorded = try makeRequest(.get, "https://api.example.com/todos?userId=7")
            let error = try #require(await transportError(ReplayTransport(directory: directory), unrecorded))
            #expect(error.urlError?.code == .fileDoesNotExist)
            let text = error.localizedDescription
            #expect(text.contains("GET /todos?userId=7"))
            #expect(text.contains(recorder.fileName(for: unrecorded)))
            #expect(
                text.contains(recorder.fileName(for: try makeRequest(.get, "https://api.example.com/todos"))),
                "recordings of the same path are listed")
            #expect(text.contains("RecordingTransport"))
        }
    }

    @Test func corruptRecordingIsReported() async throws {
        try await withTemporaryDirectory { directory in
            let request = try makeRequest(.get, "https://api.example.com/todos")
            let name = RecordingTransport(wrapping: StubTransport(), directory: directory).fileName(for: request)
            try Data("GET /todos HTTP/1.1\n\nno response here".utf8).write(to: directory.appendingPathComponent(name))
            let error = try #require(await transportError(ReplayTransport(directory: directory), request))
            #expect(error.urlError?.code == .cannotParseResponse)
            #expect(error.localizedDescription.contains("### response"))
        }
    }

    @Test func handWrittenRecordingWithCRLFHeadIsServed() async throws {
        try await withTemporaryDirectory { directory in
            let request = try makeRequest(.get, "https://api.example.com/todos/5")
            let name = RecordingTransport(wrapping: StubTransport(), directory: directory).fileName(for: request)
            let text = "GET /todos/5 HTTP/1.1\r\n\r\n### response\nHTTP/1.1 410 Gone\r\nX-Reason: moved\r\n\r\n{\"gone\":true}"
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
            let response = try await ReplayTransport(directory: directory).exchange(request)
            #expect(response.statusCode == 410)
            #expect(response.headers["X-Reason"] == "moved")
            #expect(response.body == Data(#"{"gone":true}"#.utf8))
        }
    }

    @Test func failuresOfTheWrappedTransportPassThroughUnrecorded() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: StubTransport { _ in .failure(.timedOut) }, directory: directory)
            let request = try makeRequest(.get, "https://api.example.com/x")
            #expect(await transportError(recorder, request) == .timedOut)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }
}
