import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Authorization middleware")
struct AuthorizationMiddlewareTests {
    /// A server that accepts only `Bearer fresh`, echoing the request id it was sent.
    static func freshTokenServer() throws -> TestServer {
        try TestServer { request in
            request.header("Authorization") == "Bearer fresh"
                ? .text(request.header("X-Request-ID") ?? "")
                : .status(401, body: "token expired")
        }
    }

    static func requestIDs(at server: TestServer) -> [String: Int] {
        server.requests.reduce(into: [:]) { counts, request in counts[request.header("X-Request-ID") ?? "", default: 0] += 1 }
    }

    @Test func fiftyConcurrentExpiredRequestsShareOneRefresh() async throws {
        let server = try Self.freshTokenServer()
        defer { server.stop() }
        let refreshes = Counter()
        let store = CredentialStore(
            credential: { .bearer("expired") },
            refresh: { rejected in
                refreshes.increment()
                #expect(rejected == .bearer("expired"))
                try? await Task.sleep(for: .milliseconds(50))
                return .refreshed(.bearer("fresh"))
            })
        let endpoint = OptionedEndpoint(host: server.baseURL, middlewares: [AuthorizationMiddleware(store, host: server.baseURL)])
        let results = await withTaskGroup(of: (String, Result<String, HTTPClientError>).self) { group in
            for index in 0..<50 {
                group.addTask {
                    let id = "r\(index)"
                    return (id, await endpoint.request(type: String.self, headers: ["X-Request-ID": id]))
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(refreshes.count == 1)
        #expect(results.count == 50)
        for (id, result) in results {
            #expect(result == .success(id))
        }
        let sent = Self.requestIDs(at: server)
        #expect(sent.count == 50)
        #expect(sent.values.allSatisfy { $0 <= 2 })
    }

    /// A service declared the recommended way: the store is a `static let`, the middleware is created
    /// anew by the computed `middlewares` for every call.
    enum FeedAPI: HTTPClient {
        case item(String)
        static let refreshes = Counter()
        static let credentials = CredentialStore(
            credential: { .bearer("expired") },
            refresh: { _ in
                refreshes.increment()
                try? await Task.sleep(for: .milliseconds(50))
                return .refreshed(.bearer("fresh"))
            })
        static let server = Locked<TestServer?>(nil)

        var host: String { Self.server.withLock { $0?.baseURL } ?? "http://127.0.0.1:1" }
        var endpoint: String { "items" }
        var headers: [String: String]? { if case .item(let id) = self { ["X-Request-ID": id] } else { nil } }
        var timeout: TimeInterval? { 10 }
        var middlewares: [any HTTPMiddleware] { [AuthorizationMiddleware(Self.credentials, host: host)] }
    }

    @Test func aFreshMiddlewarePerCallSharesTheStore() async throws {
        let server = try Self.freshTokenServer()
        defer { server.stop() }
        FeedAPI.server.withLock { $0 = server }
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask { await FeedAPI.item("f\(index)").request(type: String.self) == .success("f\(index)") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 20))
        #expect(FeedAPI.refreshes.count == 1)
        #expect(Self.requestIDs(at: server).values.allSatisfy { $0 <= 2 })
    }

    @Test func aFailedRefreshGivesEveryWaiterItsOwn401() async throws {
        let server = try Self.freshTokenServer()
        defer { server.stop() }
        let refreshes = Counter()
        let store = CredentialStore(
            credential: { .bearer("expired") },
            refresh: { _ in
                refreshes.increment()
                try? await Task.sleep(for: .milliseconds(50))
                return .failed
            })
        let endpoint = OptionedEndpoint(host: server.baseURL, middlewares: [AuthorizationMiddleware(store, host: server.baseURL)])
        let results = await withTaskGroup(of: Result<String, HTTPClientError>.self) { group in
            for index in 0..<20 {
                group.addTask { await endpoint.request(type: String.self, headers: ["X-Request-ID": "r\(index)"]) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 20)
        for result in results {
            #expect(result.failure?.response?.statusCode == 401)
            if case .failure(.unacceptableStatusCode(let response)) = result {
                #expect(String(decoding: response.data, as: UTF8.self) == "token expired")
            } else {
                Issue.record("expected .unacceptableStatusCode, got \(result)")
            }
        }
        #expect(refreshes.count == 1)
        #expect(Self.requestIDs(at: server).values.allSatisfy { $0 == 1 })
    }

    @Test func loggingOutAsksTheProviderAgain() async throws {
        let loads = Counter()
        let store = CredentialStore(
            credential: {
                loads.increment() == 1 ? .bearer("revoked") : .bearer("fresh")
            }, refresh: { _ in .loggedOut })
        let transport = ClosureTransport { request in
            IncomingResponse(statusCode: request.headers["Authorization"] == "Bearer fresh" ? 200 : 401)
        }
        let endpoint = OptionedEndpoint(
            host: "https://api.example.com", transport: transport,
            middlewares: [AuthorizationMiddleware(store, host: "https://api.example.com")])
        #expect(await endpoint.request(type: EmptyResponse.self).failure?.response?.statusCode == 401)
        #expect(await endpoint.request(type: EmptyResponse.self).failure == nil)
        #expect(loads.count == 2)
    }

    @Test func theStormGuardFailsFast() async throws {
        let refreshes = Counter()
        let sent = Counter()
        let store = CredentialStore(
            maximumRefreshes: 2, per: .seconds(60), credential: { .bearer("t0") },
            refresh: { _ in
                .refreshed(.bearer("t\(refreshes.increment())"))
            })
        let transport = ClosureTransport { _ in
            sent.increment()
            return IncomingResponse(statusCode: 401)
        }
        let endpoint = OptionedEndpoint(
            host: "https://api.example.com", transport: transport,
            middlewares: [AuthorizationMiddleware(store, host: "https://api.example.com")])
        #expect(await endpoint.request(type: EmptyResponse.self).failure?.response?.statusCode == 401)
        #expect(await endpoint.request(type: EmptyResponse.self).failure?.response?.statusCode == 401)
        let third = await endpoint.request(type: EmptyResponse.self)
        guard case .failure(.authorizationFailed(let reason)) = third else {
            Issue.record("expected .authorizationFailed, got \(third)")
            return
        }
        #expect(reason.contains("2 times"))
        #expect(!reason.contains("t1") && !reason.contains("t2"))
        #expect(refreshes.count == 2)
        #expect(sent.count == 5)
    }

    @Test func aRequestOvertakenByARefreshDoesNotRefreshAgain() async throws {
        let refreshes = Counter()
        let store = CredentialStore(
            credential: { .bearer("old") },
            refresh: { _ in
                .refreshed(.bearer("new\(refreshes.increment())"))
            })
        let sentWithOld = await store.issue()
        let alsoSentWithOld = await store.issue()
        #expect(try await store.refresh(rejected: sentWithOld) == .bearer("new1"))
        #expect(try await store.refresh(rejected: alsoSentWithOld) == .bearer("new1"))
        #expect(refreshes.count == 1)
        let sentWithNew = await store.issue()
        #expect(sentWithNew.credential == .bearer("new1"))
        #expect(try await store.refresh(rejected: sentWithNew) == .bearer("new2"))
    }

    @Test func signingInReplaysRejectedRequestsWithoutARefresh() async throws {
        let refreshes = Counter()
        let store = CredentialStore(
            credential: { nil },
            refresh: { _ in
                refreshes.increment()
                return .failed
            })
        let anonymous = await store.issue()
        #expect(anonymous.credential == nil)
        await store.set(.bearer("signed-in"))
        #expect(try await store.refresh(rejected: anonymous) == .bearer("signed-in"))
        #expect(refreshes.count == 0)
    }

    @Test func credentialsGoOnlyToTheServicesOrigin() async throws {
        let seen = Locked<[String: String?]>([:])
        let transport = ClosureTransport { request in
            seen.withLock { $0[request.url.absoluteString] = request.headers["Authorization"] }
            return IncomingResponse(statusCode: 200)
        }
        let store = CredentialStore(credential: { .bearer("secret") }, refresh: { _ in .failed })
        let middleware = AuthorizationMiddleware(store, host: "https://api.example.com/v1")
        for host in ["https://api.example.com", "https://cdn.example.com", "https://api.example.com:8443", "http://api.example.com"] {
            let endpoint = OptionedEndpoint(host: host, endpoint: "x", transport: transport, middlewares: [middleware])
            #expect(await endpoint.request(type: EmptyResponse.self).failure == nil)
        }
        let headers = seen.withLock { $0 }
        #expect(headers["https://api.example.com/x"] == .some("Bearer secret"))
        #expect(headers["https://cdn.example.com/x"] == .some(nil))
        #expect(headers["https://api.example.com:8443/x"] == .some(nil))
        #expect(headers["http://api.example.com/x"] == .some(nil))
    }

    @Test func aRedirectToAnotherOriginCarriesNoCredential() async throws {
        let other = try TestServer(response: .text("elsewhere"))
        defer { other.stop() }
        let own = try TestServer(response: .redirect(status: 302, location: other.baseURL + "/landing"))
        defer { own.stop() }
        let store = CredentialStore(credential: { .header(name: "X-API-Key", value: "k-secret") }, refresh: { _ in .failed })
        let endpoint = OptionedEndpoint(host: own.baseURL, middlewares: [AuthorizationMiddleware(store, host: own.baseURL)])
        #expect(await endpoint.request(type: String.self) == .success("elsewhere"))
        #expect(own.requests.first?.header("X-API-Key") == "k-secret")
        #expect(other.requests.count == 1)
        #expect(other.requests.first?.header("X-API-Key") == nil)
    }

    @Test func placesEachKindOfCredential() async throws {
        let server = try TestServer(response: .text("ok"))
        defer { server.stop() }
        let cases: [(Credential, (RecordedRequest) -> Bool)] = [
            (.bearer("abc.def"), { $0.header("Authorization") == "Bearer abc.def" }),
            (
                .basic(username: "ada", password: "pä:ss"),
                { $0.header("Authorization") == "Basic " + Data("ada:pä:ss".utf8).base64EncodedString() }
            ),
            (.header(name: "X-API-Key", value: "k1"), { $0.header("X-API-Key") == "k1" && $0.header("Authorization") == nil }),
            (.query(name: "api_key", value: "k 2&x"), { $0.query == "page=1&api_key=k%202%26x" && $0.header("Authorization") == nil }),
        ]
        for (index, (credential, check)) in cases.enumerated() {
            let store = CredentialStore(credential: { credential }, refresh: { _ in .failed })
            let endpoint = OptionedEndpoint(
                host: server.baseURL, endpoint: "items\(query: "api_key=stale&page=1")",
                middlewares: [AuthorizationMiddleware(store, host: server.baseURL)])
            #expect(await endpoint.request(type: String.self) == .success("ok"))
            let request = try #require(server.requests.last)
            #expect(server.requests.count == index + 1)
            #expect(check(request), "\(credential) sent as \(request.head)")
            if case .query = credential {} else { #expect(request.query == "api_key=stale&page=1") }
        }
    }

    @Test func aPrintedCredentialHidesItsSecret() {
        let credentials: [Credential] = [
            .bearer("s3cret"), .basic(username: "ada", password: "s3cret"),
            .header(name: "X-API-Key", value: "s3cret"), .query(name: "api_key", value: "s3cret"),
        ]
        for credential in credentials {
            for text in ["\(credential)", String(reflecting: credential), "\([credential])", "\(CredentialRefresh.refreshed(credential))"] {
                #expect(!text.contains("s3cret") && text.contains("<redacted>"), "\(text)")
            }
        }
    }

    @Test func aBadHostIsAnActionableError() async throws {
        let store = CredentialStore(credential: { .bearer("secret") }, refresh: { _ in .failed })
        let endpoint = OptionedEndpoint(
            host: "https://api.example.com", transport: ClosureTransport { _ in IncomingResponse(statusCode: 200) },
            middlewares: [AuthorizationMiddleware(store, host: "api.example.com")])
        guard case .failure(.badURL(let reason)) = await endpoint.request(type: EmptyResponse.self) else {
            Issue.record("expected .badURL")
            return
        }
        #expect(reason.contains("api.example.com") && !reason.contains("secret"))
    }
}
