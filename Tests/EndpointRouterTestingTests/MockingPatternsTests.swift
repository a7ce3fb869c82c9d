import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The five patterns of the guide "Testing code that uses EndpointRouter", as compiling tests.
// Keep the two in step: the guide quotes this file.

// MARK: - Pattern 1: a test enum whose transport is a stub

/// An API enum written for tests only: its `transport` is a stub, so it never touches the network.
enum StubbedTodoAPI: HTTPClient {
    case todo(id: Int)

    static let stub = StubTransport()
        .on(.get, "/todos/:id") { request in
            let id = Int(request.parameters["id"] ?? "") ?? 0
            return .json(Todo(userId: 1, id: id, title: "Stubbed todo \(id)", completed: false))
        }

    var host: String { "https://api.test" }
    var endpoint: String {
        switch self {
        case .todo(let id): "todos/\(segment: id)"
        }
    }
    var transport: any HTTPTransport { Self.stub }
}

// MARK: - Pattern 2: app code generic over the service

/// What the repository needs from an API: a way to name the "todos of a user" endpoint.
protocol TodoEndpoints: HTTPClient {
    static func todos(userId: Int) -> Self
}

/// App code: generic over the API, so production uses `TodoAPI` and tests a stubbed one.
struct TodoRepository<API: TodoEndpoints> {
    func openTitles(userId: Int) async throws(HTTPClientError) -> [String] {
        try await API.todos(userId: userId).request(type: [Todo].self).get()
            .filter { !$0.completed }
            .map(\.title)
    }
}

/// Production: the app's enum already has the endpoint.
extension TodoAPI: TodoEndpoints {
    static func todos(userId: Int) -> TodoAPI { .list(userId: userId) }
}

/// Test: the same endpoint answered by a stub.
enum FakeTodoAPI: TodoEndpoints {
    case todos(userId: Int)

    static let stub = StubTransport()
        .on(
            .get, "/todos", query: ["userId": "1"],
            respond: .json([
                Todo(userId: 1, id: 1, title: "Write tests", completed: false),
                Todo(userId: 1, id: 2, title: "Ship", completed: true),
            ]))

    var host: String { "https://api.test" }
    var endpoint: String { "todos" }
    var parameters: [String: Any]? {
        switch self {
        case .todos(let userId): ["userId": userId]
        }
    }
    var transport: any HTTPTransport { Self.stub }
}

// MARK: - Pattern 3: the task-local override, app code unchanged

/// App code that knows nothing about tests: it uses `TodoAPI`, whose transport is the real one.
struct TodoDashboard {
    func headline(userId: Int) async -> String {
        switch await TodoAPI.list(userId: userId).request(type: [Todo].self) {
        case .success(let todos): "\(todos.filter(\.completed).count) of \(todos.count) done"
        case .failure(.transport): "Offline"
        case .failure: "Something went wrong"
        }
    }
}

// MARK: - Pattern 4: record once, replay after

/// Records against `live` when the environment variable `RECORD` is `1`, replays otherwise.
func recordOrReplay(live: any HTTPTransport, recordings: URL) -> any HTTPTransport {
    if ProcessInfo.processInfo.environment["RECORD"] == "1" {
        return RecordingTransport(wrapping: live, directory: recordings, redactingQueryKeys: ["api_key"])
    }
    return ReplayTransport(directory: recordings)
}

@Suite("Mocking patterns")
struct MockingPatternsTests {
    @Test func pattern1_testEnumWithStubTransport() async throws {
        let todo = try await StubbedTodoAPI.todo(id: 7).request(type: Todo.self).get()
        #expect(todo.title == "Stubbed todo 7")
    }

    @Test func pattern2_appCodeGenericOverTheService() async throws {
        let repository = TodoRepository<FakeTodoAPI>()
        #expect(try await repository.openTitles(userId: 1) == ["Write tests"])
        #expect(FakeTodoAPI.stub.lastRequest?.queryItems["userId"] == "1")
    }

    @Test func pattern3_taskLocalOverrideWithTheAppEnumUnchanged() async throws {
        let all = try JSONDecoder().decode(
            [Todo].self,
            from: Data(contentsOf: TestPaths.fixtures.appendingPathComponent("todos.json")))
        let stub = StubTransport()
            .on(.get, "/todos", query: ["userId": "1"], respond: .json(all.filter { $0.userId == 1 }))

        let headline = await withTransport(stub) { await TodoDashboard().headline(userId: 1) }

        let expected = all.filter { $0.userId == 1 }
        #expect(headline == "\(expected.filter(\.completed).count) of \(expected.count) done")

        let offline = StubTransport().on(nil, "*", respond: .urlError(.notConnectedToInternet))
        #expect(await withTransport(offline) { await TodoDashboard().headline(userId: 1) } == "Offline")
    }

    @Test func pattern4_recordThenReplay() async throws {
        try await withTemporaryDirectory { recordings in
            // A stub stands in for the real server here; in a project, `live` is `URLSessionTransport.shared`
            // and the recordings are committed next to the tests.
            let server = StubTransport().on(.get, "/todos/1", respond: .fixture("todo-1.json", in: TestPaths.fixtures))
            let recorder = RecordingTransport(wrapping: server, directory: recordings)
            let live = try await withTransport(recorder) {
                try await TodoAPI.todo(id: 1).response(type: Todo.self).get()
            }

            let transport = recordOrReplay(live: server, recordings: recordings)
            let replayed = try await withTransport(transport) {
                try await TodoAPI.todo(id: 1).response(type: Todo.self).get()
            }
            #expect(replayed.value == live.value)
            #expect(replayed.data == live.data)
            #expect(server.requestCount == 1, "the replay did not reach the server")
        }
    }

    @Test func pattern5_assertingOnRecordedRequests() async throws {
        let stub = StubTransport().on(.post, "/todos") { request in
            guard let new = try? request.decodeBody(as: NewTodo.self) else { return .status(400) }
            return .json(Todo(userId: new.userId, id: 201, title: new.title, completed: new.completed), status: 201)
        }
        let draft = NewTodo(userId: 1, title: "Write the guide", completed: false)

        let created = try await withTransport(stub) { try await TodoAPI.create(draft).request(type: Todo.self).get() }

        #expect(created.id == 201)
        let sent = try #require(stub.lastRequest)
        #expect(sent.method == .post)
        #expect(sent.path == "/todos")
        #expect(sent.headers["Content-Type"] == "application/json")
        #expect(try sent.decodeBody(as: NewTodo.self) == draft)
        #expect(stub.requests(matching: .post, path: "/todos").count == 1)
    }
}
