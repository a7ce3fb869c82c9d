import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// Calls `next` twice and returns the second answer, as a retry or a replay after refreshing a token does.
struct CallTwice: HTTPMiddleware {
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        _ = try await next(request, context)
        return try await next(request, context)
    }
}

/// Sets a header to whatever value it is given, as a buggy middleware might.
struct SetHeader: HTTPMiddleware {
    let name: String
    let value: String

    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        var request = request
        request.headers[name] = value
        return try await next(request, context)
    }
}

/// Endpoints whose middlewares the tests choose.
enum MiddlewareAPI: HTTPClient {
    case retried(id: Int)
    case noted(String)

    var host: String { "https://api.example.com" }
    var endpoint: String {
        switch self {
        case .retried(let id): "todos/\(segment: id)"
        case .noted: "notes"
        }
    }
    var timeout: TimeInterval? { 10 }
    var middlewares: [any HTTPMiddleware] {
        switch self {
        case .retried: [CallTwice()]
        case .noted(let value): [SetHeader(name: "X-Note", value: value)]
        }
    }
}

@Suite("Request context and the library's checks")
struct CallContextTests {
    @Test func capturedRequestNamesTheEndpointAndTheAttempt() async throws {
        let stub = StubTransport().on(.get, "/todos/:id", respond: .json(Todo(userId: 1, id: 1, title: "a", completed: false)))
        _ = try await withTransport(stub) { try await TodoAPI.todo(id: 1).request(type: Todo.self).get() }
        let sent = try #require(stub.lastRequest)
        #expect(sent.context.endpointName == "TodoAPI.todo")
        #expect(sent.context.attempt == 1)
    }

    @Test func aMiddlewareCallingNextTwiceReachesTheStubAsAttemptsOneAndTwo() async throws {
        let stub = StubTransport().on(.get, "/todos/:id") { request in
            .json(Todo(userId: 1, id: request.context.attempt, title: request.context.endpointName, completed: false))
        }
        let todo = try await withTransport(stub) { try await MiddlewareAPI.retried(id: 5).request(type: Todo.self).get() }

        let sent = stub.capturedRequests
        #expect(sent.map(\.context.attempt) == [1, 2])
        #expect(sent.map(\.context.endpointName) == ["MiddlewareAPI.retried", "MiddlewareAPI.retried"])
        #expect(sent.map(\.path) == ["/todos/5", "/todos/5"])
        #expect(sent.first?.context.deadline == sent.last?.context.deadline, "one deadline for the whole call")
        #expect(todo.id == 2, "the route saw the attempt in its StubbedRequest")
        #expect(todo.title == "MiddlewareAPI.retried")
    }

    @Test(arguments: ["a\r\nX-Injected: 1", "line\nbreak", "carriage\rreturn"])
    func aHeaderWithALineBreakIsRefusedBeforeAnyTransport(value: String) async throws {
        let stub = StubTransport().on(nil, "*", respond: .status(200))
        let result = await withTransport(stub) { await MiddlewareAPI.noted(value).request(type: EmptyResponse.self) }
        guard case .failure(.invalidHeader(let reason)) = result else {
            Issue.record("expected .invalidHeader, got \(result)")
            return
        }
        #expect(reason.contains("X-Note"))
        #expect(stub.requestCount == 0, "the stub must record nothing: nothing was sent")

        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: stub, directory: directory)
            let recorded = await withTransport(recorder) { await MiddlewareAPI.noted(value).request(type: EmptyResponse.self) }
            #expect(recorded.isInvalidHeader)
            #expect(recorder.requestCount == 0)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.isEmpty)
        }
    }

    @Test func aFileBodyIsCapturedAsItsFileWithoutReadingIt() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("upload.bin")
            try payload(100_000).write(to: file)
            let stub = StubTransport().on(.post, "/uploads") { request in
                request.bodyFile == file && request.body.isEmpty ? .status(201) : .status(400)
            }
            let response = try await withTransport(stub) { try await FilesAPI.upload(file).response(type: EmptyResponse.self).get() }
            #expect(response.statusCode == 201)
            let sent = try #require(stub.lastRequest)
            #expect(sent.bodyFile == file)
            #expect(sent.body.isEmpty)
            #expect(sent.request.body == .file(file))
            #expect(sent.headers["Content-Type"] == "application/octet-stream")
        }
    }

    @Test func headersKeepTheirOrderAndRepeats() async throws {
        let stub = StubTransport { _ in .status(204) }
        var headers = HeaderFields()
        headers.add(name: "X-B", value: "1")
        headers.add(name: "X-A", value: "2")
        headers.add(name: "X-B", value: "3")
        _ = try await stub.exchange(makeRequest(.get, "https://api.example.com/x", headers: headers))
        let sent = try #require(stub.lastRequest)
        #expect(sent.headers.fields.map(\.name) == ["X-B", "X-A", "X-B"])
        #expect(sent.headers.values(for: "x-b") == ["1", "3"])
    }
}

extension Result where Failure == HTTPClientError {
    var isInvalidHeader: Bool {
        if case .failure(.invalidHeader) = self { true } else { false }
    }
}
