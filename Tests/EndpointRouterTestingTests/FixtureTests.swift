import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Fixtures")
struct FixtureTests {
    @Test func fixtureFoundFromFilePathDecodesThroughTheClient() async throws {
        let stub = StubTransport().on(.get, "/todos", respond: .fixture("todos.json", in: TestPaths.fixtures))
        let response = try await withTransport(stub) {
            try await TodoAPI.list(userId: nil).response(type: [Todo].self).get()
        }
        #expect(response.value.count == 200)
        #expect(Set(response.value.map(\.id)).count == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.data == (try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("todos.json"))))
    }

    @Test func textFixtureGetsTextContentType() async throws {
        let stub = StubTransport().on(nil, "*", respond: .fixture("hello.txt", in: TestPaths.fixtures))
        let response = try await stub.exchange(makeRequest(.get, "https://api.example.com/hello"))
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test func malformedFixtureFailsDecoding() async {
        let stub = StubTransport().on(.get, "/todos/1", respond: .fixture("malformed.json", in: TestPaths.fixtures))
        let result = await withTransport(stub) { await TodoAPI.todo(id: 1).request(type: Todo.self) }
        guard case .failure(.decodingFailed) = result else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
    }

    @Test func missingFixtureFailsTheRequestNamingThePathAndWhatIsThere() async throws {
        let stub = StubTransport().on(.get, "/todos", respond: .fixture("todoz.json", in: TestPaths.fixtures))
        let error = try #require(await transportError(stub, makeRequest(.get, "https://api.example.com/todos")))
        #expect(error.urlError?.code == .fileDoesNotExist)
        let text = error.localizedDescription
        #expect(text.contains("todoz.json"))
        #expect(text.contains(TestPaths.fixtures.appendingPathComponent("todoz.json").path))
        #expect(text.contains("todos.json"), "the listing should show the likely intended file")
    }

    @Test func missingDirectoryIsNamed() async throws {
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString)")
        let stub = StubTransport().on(nil, "*", respond: .fixture("a.json", in: nowhere))
        let error = try #require(await transportError(stub, makeRequest(.get, "https://api.example.com/a")))
        #expect(error.localizedDescription.contains("does not exist"))
    }
}
