import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// `withTransport` hands back its body's error with its type, so tests match `HTTPClientError`
/// cases without a cast.
@Suite("withTransport")
struct WithTransportTests {
    @Test func theBodysTypedErrorComesOutTyped() async {
        let stub = StubTransport().on(.get, "/todos/1", respond: .status(404))
        do {
            _ = try await withTransport(stub) { () async throws(HTTPClientError) in
                try await TodoAPI.todo(id: 1).request(type: Todo.self).get()
            }
            Issue.record("a 404 decoded as a todo")
        } catch {
            // `error` is an HTTPClientError here: this would not compile with an untyped rethrow.
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("expected .unacceptableStatusCode, got \(error)")
                return
            }
            #expect(response.statusCode == 404)
        }
    }

    @Test func expectThrowsMatchesACaseDirectly() async {
        let stub = StubTransport().on(.get, "/todos/1", respond: .status(500))
        await #expect(throws: HTTPClientError.self) {
            try await withTransport(stub) { () async throws(HTTPClientError) in
                try await TodoAPI.todo(id: 1).request(type: Todo.self).get()
            }
        }
    }

    @Test func theSynchronousFormIsTypedToo() {
        struct Refused: Error, Equatable {}
        let stub = StubTransport()
        #expect(throws: Refused()) {
            try withTransport(stub) { () throws(Refused) in throw Refused() }
        }
        #expect(withTransport(stub) { 42 } == 42)
    }

    @Test func anUntypedBodyStillWorksAndUsesTheStub() async throws {
        let stub = StubTransport().on(
            .get, "/todos/1",
            respond: .json(#"{"userId": 1, "id": 1, "title": "t", "completed": false}"#))
        let todo = try await withTransport(stub) { try await TodoAPI.todo(id: 1).request(type: Todo.self).get() }
        #expect(todo.title == "t")
        #expect(stub.capturedRequests.count == 1)
    }

    /// Swift 6 infers `any Error` for a closure with `try`; the one annotation the docs show is enough.
    @Test func insideDoThrowsTheClosuresTypeIsTheOneAnnotation() async {
        let stub = StubTransport().on(.get, "/todos/1", respond: .status(404))
        do throws(HTTPClientError) {
            _ = try await withOverride(TaskOverride(transport: stub)) { () async throws(HTTPClientError) in
                try await TodoAPI.todo(id: 1).request(type: Todo.self).get()
            }
            Issue.record("a 404 decoded as a todo")
        } catch {
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("expected .unacceptableStatusCode, got \(error)")
                return
            }
            #expect(response.statusCode == 404)
        }
    }

    @Test func anotherErrorTypeNamesItOnceInTheClosure() async {
        struct Refused: Error, Equatable {}
        do throws(Refused) {
            try await withOverride(TaskOverride(transport: StubTransport())) { () async throws(Refused) in throw Refused() }
            Issue.record("nothing thrown")
        } catch {
            #expect(error == Refused())
        }
    }
}
