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
        let responseHeaders: HeaderFields
        private let received = Locked<[OutgoingRequest]>([])

        init(echoing credentialName: String, headers: HeaderFields = ["Cache-Control": "max-age=60"]) {
            self.credentialName = credentialName
            responseHeaders = headers
        }

        var requests: [OutgoingRequest] { received.withLock { $0 } }

        var transport: ClosureTransport {
            ClosureTransport { [self] request in
                received.withLock { $0.append(request) }
                return IncomingResponse(
                    statusCode: 200, headers: responseHeaders, body: Data((request.headers[credentialName] ?? "none").utf8))
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
        let request = OutgoingRequest(url: try #require(URL(string: Self.host + "/me")), headers: ["Cookie": "sid=alice-secret"])
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
        let received = Locked<[OutgoingRequest]>([])
        let transport = ClosureTransport { request in
            received.withLock { $0.append(request) }
            if request.headers["If-None-Match"] != nil {
                return IncomingResponse(
                    statusCode: 304, headers: ["ETag": request.headers["If-None-Match"] ?? "", "Cache-Control": "max-age=60"])
            }
            let user = request.headers["X-API-Key"] ?? "none"
            return IncomingResponse(
                statusCode: 200, headers: ["ETag": "\"\(user)-v1\"", "Cache-Control": "max-age=60"], body: Data(user.utf8))
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

    /// `Vary` naming the credential headers (Django and Rails send `Vary: Cookie` by default): the
    /// entry matches them through the credential partition and never holds their values — not in a
    /// file, a file name or the entry in memory — while users stay apart and `Accept` still varies.
    @Test func aVaryingCredentialIsMatchedByPartitionAndNeverStored() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let served = Locked(0)
        let transport = ClosureTransport { request in
            let page = served.withLock { count -> Int in
                count += 1
                return count
            }
            return IncomingResponse(
                statusCode: 200,
                headers: ["Cache-Control": "public, max-age=600", "Vary": "X-API-Key, Cookie, Authorization, Accept"],
                body: Data("page \(page)".utf8))
        }
        let cache = makeCache(directory: directory)
        func user(_ name: String, accept: String = "application/json") -> MiddlewareEndpoint {
            MiddlewareEndpoint(
                host: Self.host, endpoint: "me",
                headers: ["Cookie": "sid=\(name)-cookie-SECRET", "Authorization": "Bearer \(name)-token-SECRET", "Accept": accept],
                transport: transport, middlewares: [Self.apiKey("\(name)-key-SECRET"), CachingMiddleware(cache: cache)])
        }
        #expect(await user("alice").request(type: String.self) == .success("page 1"))
        #expect(await user("alice").request(type: String.self) == .success("page 1"), "the same user is answered from the cache")
        #expect(await user("bob").request(type: String.self) == .success("page 2"), "another user is not")
        #expect(await user("bob").request(type: String.self) == .success("page 2"))
        #expect(await user("alice", accept: "text/plain").request(type: String.self) == .success("page 3"), "Accept still varies")
        #expect(served.withLock { $0 } == 3)

        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count == 2)
        for file in files {
            #expect(!file.lastPathComponent.contains("SECRET"))
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            #expect(!text.contains("SECRET"), "a credential in \(file.lastPathComponent): \(text)")
            #expect(text.contains("accept"), "the entry still records the Accept it varies on")
        }
        var request = OutgoingRequest(
            url: try #require(URL(string: Self.host + "/me")),
            headers: ["Cookie": "sid=bob-cookie-SECRET", "Authorization": "Bearer bob-token-SECRET", "X-API-Key": "bob-key-SECRET"])
        request.headers["Accept"] = "application/json"
        let entry = try #require(cache.entry(for: cache.key(for: request, credentialHeaders: ["x-api-key"])))
        #expect(entry.varying.keys.sorted() == ["accept"])
    }
}
