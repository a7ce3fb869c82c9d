import Foundation
import Testing

@testable import EndpointRouter

/// The HTTP cache never answers one user with another user's response (issue 16, item 2): entries
/// are partitioned by the credentials the request carries. Offline: the transport is a closure that
/// answers with the credential it saw.
@Suite("HTTP cache: credential partitioning")
struct CacheCredentialPartitionTests {
    /// A transport answering with the value of `credentialName` it received (`none` without one),
    /// remembering every request it was sent.
    final class EchoTransport: Sendable {
        let credentialName: String
        let responseHeaders: HTTPHeaders
        private let received = Locked<[HTTPRequest]>([])

        init(echoing credentialName: String, headers: HTTPHeaders = ["Cache-Control": "max-age=60"]) {
            self.credentialName = credentialName
            responseHeaders = headers
        }

        var requests: [HTTPRequest] { received.withLock { $0 } }

        var transport: ClosureTransport {
            ClosureTransport { [self] request in
                received.withLock { $0.append(request) }
                return HTTPResponse(statusCode: 200, headers: responseHeaders, body: Data((request.headers[credentialName] ?? "none").utf8))
            }
        }
    }

    static let host = "https://api.example.com"

    let clock = CachingMiddlewareTests.TestClock()

    func makeCache(directory: URL? = nil) -> ResponseCache {
        let clock = clock
        return ResponseCache(memoryBudget: 1024 * 1024, directory: directory, diskBudget: 1024 * 1024, now: { clock.now })
    }

    func endpoint(
        _ echo: EchoTransport, cache: ResponseCache, headers: [String: String]? = nil, before: [any HTTPMiddleware] = [],
        sensitive: Set<String> = []
    ) -> MiddlewareEndpoint {
        var endpoint = MiddlewareEndpoint(
            host: Self.host, endpoint: "me", headers: headers, transport: echo.transport,
            middlewares: before + [CachingMiddleware(cache: cache)])
        endpoint.redirectPolicy = RedirectPolicy(sensitiveHeaders: sensitive)
        return endpoint
    }

    static func apiKey(_ value: String) -> AuthorizationMiddleware {
        AuthorizationMiddleware(
            CredentialStore(credential: { .header(name: "X-API-Key", value: value) }, refresh: { _ in .failed }), host: host)
    }

    @Test func anAPIKeyFromTheAuthorizationMiddlewareKeepsAliceAndBobApart() async throws {
        let echo = EchoTransport(echoing: "X-API-Key")
        let cache = makeCache()
        let alice = endpoint(echo, cache: cache, before: [Self.apiKey("alice-key")])
        let bob = endpoint(echo, cache: cache, before: [Self.apiKey("bob-key")])
        let anonymous = endpoint(echo, cache: cache)
        #expect(await alice.request(type: String.self) == .success("alice-key"))
        #expect(await bob.request(type: String.self) == .success("bob-key"))
        #expect(await anonymous.request(type: String.self) == .success("none"))
        #expect(echo.requests.count == 3)
        // The cache still works within each partition.
        #expect(await alice.request(type: String.self) == .success("alice-key"))
        #expect(await bob.request(type: String.self) == .success("bob-key"))
        #expect(await anonymous.request(type: String.self) == .success("none"))
        #expect(echo.requests.count == 3)
    }

    /// Credentials the endpoint sets itself: the library's credential headers, and a name it declares
    /// sensitive in its redirect policy. `Authorization` needs `public` to be stored at all.
    @Test(
        arguments: [
            ("Cookie", [], "max-age=60"),
            ("Authorization", [], "public, max-age=60"),
            ("Proxy-Authorization", [], "max-age=60"),
            ("X-Session", ["X-Session"], "max-age=60"),
        ] as [(String, Set<String>, String)])
    func aCredentialTheEndpointSetsKeepsAliceAndBobApart(name: String, declared: Set<String>, control: String) async throws {
        let echo = EchoTransport(echoing: name, headers: ["Cache-Control": control])
        let cache = makeCache()
        let alice = endpoint(echo, cache: cache, headers: [name: "alice-value"], sensitive: declared)
        let bob = endpoint(echo, cache: cache, headers: [name: "bob-value"], sensitive: declared)
        #expect(await alice.request(type: String.self) == .success("alice-value"))
        #expect(await bob.request(type: String.self) == .success("bob-value"))
        #expect(await endpoint(echo, cache: cache, sensitive: declared).request(type: String.self) == .success("none"))
        #expect(echo.requests.count == 3)
        #expect(await alice.request(type: String.self) == .success("alice-value"))
        #expect(await bob.request(type: String.self) == .success("bob-value"))
        #expect(echo.requests.count == 3)
    }

    @Test func onDiskACredentialedEntryServesOnlyTheObjectThatWroteIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let echo = EchoTransport(echoing: "Cookie")
        let first = makeCache(directory: directory)
        #expect(
            await endpoint(echo, cache: first, headers: ["Cookie": "sid=alice-secret"]).request(type: String.self)
                == .success("sid=alice-secret"))
        #expect(await endpoint(echo, cache: first).request(type: String.self) == .success("none"))
        #expect(echo.requests.count == 2)
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count == 2)
        #expect(files.allSatisfy { !$0.lastPathComponent.contains("alice") })
        let request = HTTPRequest(url: try #require(URL(string: Self.host + "/me")), headers: ["Cookie": "sid=alice-secret"])
        let key = first.key(for: request, credentialHeaders: [])
        #expect(!key.contains("alice"), "no credential value in a key")
        #expect(key != ResponseCache.key(for: request.url, partition: ""))

        let relaunched = makeCache(directory: directory)
        #expect(await endpoint(echo, cache: relaunched).request(type: String.self) == .success("none"))
        #expect(echo.requests.count == 2, "an entry without credentials is still served from disk")
        #expect(await endpoint(echo, cache: relaunched, headers: ["Cookie": "sid=bob"]).request(type: String.self) == .success("sid=bob"))
        #expect(
            await endpoint(echo, cache: relaunched, headers: ["Cookie": "sid=alice-secret"]).request(type: String.self)
                == .success("sid=alice-secret"))
        #expect(echo.requests.count == 4, "credentialed entries of another object are not found")
    }

    /// Alice's stale entry has an ETag; Bob's request must neither carry it nor be answered with
    /// Alice's body on a 304.
    @Test func revalidationStaysInsideThePartition() async throws {
        let received = Locked<[HTTPRequest]>([])
        let transport = ClosureTransport { request in
            received.withLock { $0.append(request) }
            if request.headers["If-None-Match"] != nil {
                return HTTPResponse(
                    statusCode: 304, headers: ["ETag": request.headers["If-None-Match"] ?? "", "Cache-Control": "max-age=60"])
            }
            let user = request.headers["X-API-Key"] ?? "none"
            return HTTPResponse(statusCode: 200, headers: ["ETag": "\"\(user)-v1\"", "Cache-Control": "max-age=60"], body: Data(user.utf8))
        }
        let cache = makeCache()
        let alice = MiddlewareEndpoint(
            host: Self.host, endpoint: "doc", transport: transport,
            middlewares: [Self.apiKey("alice-key"), CachingMiddleware(cache: cache)])
        var bob = alice
        bob.middlewares = [Self.apiKey("bob-key"), CachingMiddleware(cache: cache)]
        #expect(await alice.request(type: String.self) == .success("alice-key"))
        clock.advance(61)
        #expect(await bob.request(type: String.self) == .success("bob-key"))
        let bobsRequest = try #require(received.withLock { $0.last })
        #expect(bobsRequest.headers["If-None-Match"] == nil, "Bob must not send Alice's validator")
        // Alice still revalidates her own entry and gets her body on the 304.
        #expect(await alice.request(type: String.self) == .success("alice-key"))
        #expect(received.withLock { $0.last?.headers["If-None-Match"] } == "\"alice-key-v1\"")
        #expect(received.withLock { $0.count } == 3)
    }
}
