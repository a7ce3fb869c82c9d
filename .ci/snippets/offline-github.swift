// Runs the README's Quick start offline (after `models`): the whole block inside withTransport with
// a stub that answers as api.github.com would, then checks what it decoded and sent.
import EndpointRouterTesting

struct UnexpectedResult: Error { let what: String }

let stub = StubTransport().on(.get, "/users/:name", respond: .json(#"{"login": "octocat", "id": 583231}"#))
try await withTransport(stub) {
    // @snippet
    guard user.login == "octocat", (try? result.get())?.id == 583231 else { throw UnexpectedResult(what: "decoded \(user)") }
    guard stub.requestCount == 2, stub.lastRequest?.path == "/users/octocat" else { throw UnexpectedResult(what: "sent \(stub.capturedRequests)") }
}
