import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Unmatched requests")
struct UnmatchedRequestTests {
    @Test func messageNamesTheRequestAndEveryRouteWithItsReason() async throws {
        let stub = StubTransport()
            .on(.post, "/todos", respond: .status(201))
            .on(.get, "/todos/:id", query: ["x": "2"], respond: .status(200))
            .on(.get, "/users/:id", respond: .status(200))
            .on(.get, "/todos/7", headers: ["X-Api-Key": "k1"], respond: .status(200))
        let error = try #require(await transportError(stub, makeRequest(.get, "https://api.example.com/todos/7?x=1")))
        let urlError = try #require(error.urlError)
        #expect(urlError.code == .resourceUnavailable)
        let text = error.localizedDescription
        #expect(text.contains("StubTransport has no route for GET /todos/7?x=1"))
        #expect(text.contains("https://api.example.com/todos/7?x=1"))
        #expect(text.contains("1. POST /todos: method is GET, the route wants POST"))
        #expect(text.contains("2. GET /todos/:id?x=2: query item 'x' is '1', the route wants '2'"))
        #expect(text.contains("3. GET /users/:id: path /todos/7 does not match /users/:id"))
        #expect(text.contains("4. GET /todos/7 [header X-Api-Key: …]: header 'X-Api-Key' is missing"))
        #expect(text.contains(#"stub.on(.get, "/todos/7", respond: ...)"#))
    }

    @Test func messageSaysWhenThereAreNoRoutes() async throws {
        let stub = StubTransport()
        let error = try #require(await transportError(stub, makeRequest(.delete, "https://api.example.com/todos/3")))
        #expect(error.localizedDescription.contains("DELETE /todos/3"))
        #expect(error.localizedDescription.contains("The stub has no routes."))
        #expect(error.localizedDescription.contains(#"stub.on(.delete, "/todos/3""#))
    }

    @Test func credentialsStayOutOfTheMessage() async throws {
        let stub = StubTransport().on(
            .get, "/me", headers: ["Authorization": "Bearer expected-secret"],
            respond: .status(200))
        let request = try makeRequest(.get, "https://api.example.com/me", headers: ["Authorization": "Bearer sent-secret"])
        let text = try #require(await transportError(stub, request)).localizedDescription
        #expect(text.contains("header 'Authorization' has a different value"))
        #expect(!text.contains("expected-secret"))
        #expect(!text.contains("sent-secret"))
    }

    /// Nothing listed: a credential-looking header or query value the code under test sent stays
    /// out of the message a failing test prints.
    @Test func credentialLookingValuesStayOutOfTheMessage() async throws {
        let stub = StubTransport().on(.get, "/me", headers: ["X-Api-Key": "expected-key"], respond: .status(200))
        let request = try makeRequest(
            .get, "https://api.example.com/me?access_token=sent-token&page=2", headers: ["X-Api-Key": "sent-key"])
        let text = try #require(await transportError(stub, request)).localizedDescription
        #expect(text.contains("GET /me?access_token=<redacted>&page=2"))
        #expect(text.contains("header 'X-Api-Key' has a different value"))
        for secret in ["expected-key", "sent-key", "sent-token"] {
            #expect(!text.contains(secret), "\(text)")
        }
    }

    @Test func throughTheClientTheFailureIsTypedAndTheRequestRecorded() async throws {
        let stub = StubTransport().on(.get, "/todos", respond: .json("[]"))
        let result = await withTransport(stub) { await TodoAPI.todo(id: 7).request(type: Todo.self) }
        guard case .failure(.transport(let urlError)) = result else {
            Issue.record("expected a .transport failure, got \(result)")
            return
        }
        #expect(urlError.code == .resourceUnavailable)
        #expect(HTTPClientError.transport(urlError).description.contains("GET /todos/7"))
        #expect(stub.requestCount == 1)
        #expect(stub.lastRequest?.path == "/todos/7")
    }
}

@Suite("Captured requests")
struct CapturedRequestTests {
    @Test func partsAreTakenApart() async throws {
        let stub = StubTransport { _ in .status(204) }
        let body = try JSONEncoder().encode(NewTodo(userId: 1, title: "Write tests", completed: false))
        let request = try makeRequest(
            .post, "https://api.example.com/todos?tag=a%20b&ids%5B%5D=1&ids%5B%5D=2&q=x+y",
            headers: ["Content-Type": "application/json"], body: body)
        _ = try await stub.exchange(request, context: makeContext(endpoint: "TodoAPI.create", attempt: 3))
        let sent = try #require(stub.lastRequest)
        #expect(sent.request == request)
        #expect(sent.context.endpointName == "TodoAPI.create")
        #expect(sent.context.attempt == 3)
        #expect(sent.method == .post)
        #expect(sent.path == "/todos")
        #expect(sent.url == request.url)
        #expect(sent.headers["content-type"] == "application/json")
        #expect(sent.queryItems == ["tag": "a b", "ids[]": "2", "q": "x y"])
        #expect(sent.queryValues(for: "ids[]") == ["1", "2"])
        #expect(try sent.decodeBody(as: NewTodo.self) == NewTodo(userId: 1, title: "Write tests", completed: false))
        #expect(sent.bodyText?.contains("Write tests") == true)
        #expect(sent.description == "POST /todos?tag=a%20b&ids%5B%5D=1&ids%5B%5D=2&q=x+y")
    }

    @Test func recordingHelpersFilterCountAndReset() async throws {
        let stub = StubTransport { _ in .status(200) }
        for url in ["/todos/1", "/todos/2", "/users/1"] {
            _ = try await stub.exchange(makeRequest(.get, "https://api.example.com\(url)"))
        }
        _ = try await stub.exchange(makeRequest(.delete, "https://api.example.com/todos/2"))
        #expect(stub.requestCount == 4)
        #expect(stub.capturedRequests.map(\.path) == ["/todos/1", "/todos/2", "/users/1", "/todos/2"])
        #expect(stub.requests(matching: .get, path: "/todos/:id").map(\.path) == ["/todos/1", "/todos/2"])
        #expect(stub.requests(path: "/todos/*").count == 3)
        #expect(stub.requests(matching: .delete, path: "/todos/2").count == 1)
        #expect(stub.lastRequest?.method == .delete)
        stub.removeAllCapturedRequests()
        #expect(stub.requestCount == 0)
        #expect(stub.lastRequest == nil)
    }
}
