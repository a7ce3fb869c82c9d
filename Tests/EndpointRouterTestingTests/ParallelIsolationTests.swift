import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// A service set up exactly as the documentation recommends: a `static let` credential store whose
/// refresh asks the service's own token endpoint. Nothing in it knows about tests.
enum AccountAPI: HTTPClient {
    case me
    case renewToken

    static let credentials = CredentialStore(
        credential: { .bearer("initial") },
        refresh: { _ in
            guard let token = try? await AccountAPI.renewToken.request(type: IssuedToken.self).get() else { return .failed }
            return .refreshed(.bearer(token.token))
        })

    var host: String { "https://accounts.example.com" }
    var endpoint: String {
        switch self {
        case .me: "me"
        case .renewToken: "token"
        }
    }
    var method: RequestMethod { self == .renewToken ? .post : .get }
    var middlewares: [any HTTPMiddleware] {
        self == .renewToken ? [] : [AuthorizationMiddleware(Self.credentials, host: host), RetryMiddleware()]
    }
}

struct IssuedToken: Codable, Sendable {
    var token: String
}

/// Issue 40: tests running in parallel, each with its own credentials and a refresh, against a
/// service whose store is process-wide. No request may carry another test's token.
@Suite("Parallel isolation of credentials, middlewares and options")
struct ParallelIsolationTests {
    /// A server for test `id`: it accepts only its own token, and issues it on refresh.
    static func server(for id: Int) -> StubTransport {
        StubTransport()
            .on(.post, "/token", respond: .json(IssuedToken(token: "token-\(id)")))
            .on(.get, "/me") { request in
                request.headers["Authorization"] == "Bearer token-\(id)" ? .json(["id": id]) : .status(401)
            }
    }

    @Test(arguments: 0..<200)
    func eachTestRefreshesItsOwnCredentialAndSeesNoOther(id: Int) async {
        let server = Self.server(for: id)
        let answers = await bounded {
            await withTransport(server) {
                [await AccountAPI.me.request(type: [String: Int].self), await AccountAPI.me.request(type: [String: Int].self)]
            }
        }
        #expect(answers?.map { try? $0.get() } == [["id": id], ["id": id]])
        let sent = server.capturedRequests.filter { $0.path == "/me" }.compactMap { $0.headers["Authorization"] }
        // The first request carries the declared credential, is refused, and every later one
        // carries this test's token: never another test's.
        #expect(sent == ["Bearer initial", "Bearer token-\(id)", "Bearer token-\(id)"])
        #expect(server.capturedRequests.filter { $0.path == "/token" }.count == 1)
    }

    @Test(arguments: 0..<20)
    func aSubstitutedStoreIsTheOnlyOneUsed(id: Int) async {
        let server = Self.server(for: id)
        var override = TaskOverride(transport: server)
        override.substitute(
            AccountAPI.credentials,
            with: CredentialStore(credential: { .bearer("token-\(id)") }, refresh: { _ in .failed }))
        let bound = override
        let me = await bounded { await withOverride(bound) { await AccountAPI.me.request(type: [String: Int].self) } }
        #expect(me.flatMap { try? $0.get() } == ["id": id])
        #expect(server.capturedRequests.map { $0.headers["Authorization"] } == ["Bearer token-\(id)"])
    }

    @Test(arguments: 0..<20)
    func signingInUnderAnOverrideChangesOnlyThatOverridesStore(id: Int) async {
        let server = Self.server(for: id)
        let me = await bounded {
            await withTransport(server) {
                // App code signing in through the service's own store, as written.
                await AccountAPI.credentials.set(.bearer("token-\(id)"))
                return await AccountAPI.me.request(type: [String: Int].self)
            }
        }
        #expect(me.flatMap { try? $0.get() } == ["id": id])
        #expect(server.capturedRequests.map(\.path) == ["/me"])
    }

    @Test func middlewaresAndOptionsAreRewrittenForTheTaskOnly() async {
        let server = StubTransport().on(.get, "/me") { request in
            request.headers["X-Test"] == "yes" ? .status(503) : .json(["id": 1])
        }
        let tagging = TaskOverride(
            transport: server,
            middlewares: { declared in declared.filter { !($0 is RetryMiddleware) } + [Tagging()] },
            options: { $0.retryable = false })
        let outcome = await withOverride(tagging) { await AccountAPI.me.request(type: [String: Int].self) }
        #expect(throws: HTTPClientError.self) { try outcome.get() }
        // Tagged, and sent once: the retry middleware was dropped and the retry switched off.
        #expect(server.capturedRequests.filter { $0.path == "/me" }.count == 1)
        #expect(server.capturedRequests.allSatisfy { $0.path != "/me" || $0.headers["X-Test"] == "yes" })
    }

    @Test func anInnerOverrideKeepsWhatTheOuterSetsAndItDoesNot() async {
        let clock = VirtualClock()
        let server = StubTransport().on(.get, "/todos/1", respond: .status(503, headers: ["Retry-After": "7"]))
        _ = await withOverride(TaskOverride(clock: clock)) {
            await withTransport(server) { await RetryingTodoAPI.todo(id: 1).request(type: Todo.self) }
        }
        #expect(clock.waits == [.seconds(7), .seconds(7)])
        #expect(TaskOverride.current == nil)
    }
}

/// Marks every request, to show that a middleware added by an override runs.
private struct Tagging: HTTPMiddleware {
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        var request = request
        request.headers["X-Test"] = "yes"
        return try await next(request, context)
    }
}
