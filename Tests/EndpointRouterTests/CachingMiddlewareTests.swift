import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

/// The HTTP cache against a server that counts what reaches it; time is a clock the test moves, so
/// nothing waits for a response to age.
@Suite("HTTP cache")
struct CachingMiddlewareTests {
    /// A wall clock the test sets.
    final class TestClock: Sendable {
        private let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    let clock = TestClock()

    func makeCache(memoryBudget: Int = 1024 * 1024, directory: URL? = nil) -> ResponseCache {
        let clock = clock
        return ResponseCache(memoryBudget: memoryBudget, directory: directory, diskBudget: 1024 * 1024, now: { clock.now })
    }

    func endpoint(
        _ server: TestServer, _ path: String, cache: ResponseCache, headers: [String: String]? = nil,
        policy: CachePolicy = .useProtocol
    ) -> MiddlewareEndpoint {
        var endpoint = MiddlewareEndpoint(
            host: server.baseURL, endpoint: path, headers: headers,
            middlewares: [CachingMiddleware(cache: cache)])
        endpoint.options.cachePolicy = policy
        return endpoint
    }

    @Test func aSecondGETWithinMaxAgeReachesNoServer() async throws {
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "max-age=60")], body: "fresh"))
        defer { server.stop() }
        let cache = makeCache()
        let endpoint = endpoint(server, "item", cache: cache)
        #expect(await endpoint.request(type: String.self) == .success("fresh"))
        clock.advance(59)
        let second = try await endpoint.response(type: String.self).get()
        #expect(second.value == "fresh")
        #expect(second.headers["Age"] == "59")
        #expect(server.requests.count == 1)
    }

    @Test func expiresMinusDateIsTheFreshnessWithoutMaxAge() async throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let server = try TestServer(
            response: .status(
                200,
                headers: [
                    (name: "Date", value: HTTPDate.format(date)),
                    (name: "Expires", value: HTTPDate.format(date + 120)),
                ],
                body: "until expiry"))
        defer { server.stop() }
        let endpoint = endpoint(server, "expires", cache: makeCache())
        _ = await endpoint.request(type: String.self)
        clock.advance(119)
        _ = await endpoint.request(type: String.self)
        #expect(server.requests.count == 1)
        clock.advance(2)
        #expect(await endpoint.request(type: String.self) == .success("until expiry"))
        #expect(server.requests.count == 2)  // expired, no validator: fetched again
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(HTTPDate.parse(form) == Date(timeIntervalSince1970: 784_111_777), "\(form)")
        }
        #expect(HTTPDate.parse("0") == nil)
    }

    @Test func afterExpiryA304IsAnsweredAsTheCached200WithUpdatedHeaders() async throws {
        let server = try TestServer { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return .status(
                    304,
                    headers: [
                        (name: "ETag", value: "\"v1\""), (name: "Cache-Control", value: "max-age=60"),
                        (name: "X-Revision", value: "2"),
                    ])
            }
            return .status(
                200,
                headers: [
                    (name: "ETag", value: "\"v1\""), (name: "Cache-Control", value: "max-age=60"),
                    (name: "X-Revision", value: "1"), (name: "Content-Type", value: "text/plain"),
                ],
                body: "cached body")
        }
        defer { server.stop() }
        let cache = makeCache()
        let endpoint = endpoint(server, "doc", cache: cache)
        #expect(await endpoint.request(type: String.self) == .success("cached body"))
        clock.advance(61)
        let revalidated = try await endpoint.response(type: String.self).get()
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("If-None-Match") == "\"v1\"")
        #expect(revalidated.statusCode == 200)
        #expect(revalidated.value == "cached body")
        #expect(revalidated.headers["X-Revision"] == "2")
        #expect(revalidated.headers["Content-Type"] == "text/plain")
        // Fresh again for another 60 s from the 304.
        clock.advance(30)
        #expect(await endpoint.request(type: String.self) == .success("cached body"))
        #expect(server.requests.count == 2)
    }

    @Test func lastModifiedIsRevalidatedWithIfModifiedSince() async throws {
        let modified = "Sun, 01 Nov 2026 10:00:00 GMT"
        let server = try TestServer { request in
            if request.header("If-Modified-Since") == modified { return .status(304) }
            return .status(
                200, headers: [(name: "Last-Modified", value: modified), (name: "Cache-Control", value: "no-cache")],
                body: "report")
        }
        defer { server.stop() }
        let endpoint = endpoint(server, "report", cache: makeCache())
        #expect(await endpoint.request(type: String.self) == .success("report"))
        #expect(await endpoint.request(type: String.self) == .success("report"))  // no-cache: always revalidated
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("If-Modified-Since") == modified)
    }

    @Test func noStoreIsNeverStored() async throws {
        let server = try TestServer(
            response: .status(
                200,
                headers: [
                    (name: "Cache-Control", value: "no-store, max-age=60"),
                    (name: "ETag", value: "\"x\""),
                ], body: "secret"))
        defer { server.stop() }
        let cache = makeCache()
        let endpoint = endpoint(server, "account", cache: cache)
        #expect(await endpoint.request(type: String.self) == .success("secret"))
        #expect(await endpoint.request(type: String.self) == .success("secret"))
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("If-None-Match") == nil)
        #expect(cache.memoryUsage == 0)
    }

    @Test func theByteBudgetIsKeptByEvictingTheLeastRecentlyUsed() async throws {
        let body = String(repeating: "x", count: 1000)
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "max-age=600")], body: body))
        defer { server.stop() }
        // Room for two entries of ~1.3 kB (body, headers, allowance), not three.
        let cache = makeCache(memoryBudget: 3000)
        func get(_ path: String) async { _ = await endpoint(server, path, cache: cache).request(type: String.self) }
        await get("a")
        await get("b")
        await get("a")  // a hit: a is now the most recently used
        #expect(server.requests.count == 2)
        await get("c")  // evicts b
        #expect(cache.memoryUsage <= 3000)
        #expect(cache.memoryUsage > 2000)
        await get("a")
        #expect(server.requests.count == 3)  // a was kept
        await get("b")
        #expect(server.requests.count == 4)  // b was evicted
        #expect(server.requests.map(\.path) == ["/a", "/b", "/c", "/b"])
        #expect(cache.memoryUsage <= 3000)
    }

    @Test func aResponseLargerThanTheBudgetIsNotKept() async throws {
        let server = try TestServer(
            response: .status(
                200, headers: [(name: "Cache-Control", value: "max-age=600")],
                body: String(repeating: "y", count: 5000)))
        defer { server.stop() }
        let cache = makeCache(memoryBudget: 3000)
        let endpoint = endpoint(server, "big", cache: cache)
        _ = await endpoint.request(type: String.self)
        _ = await endpoint.request(type: String.self)
        #expect(server.requests.count == 2)
        #expect(cache.memoryUsage == 0)
    }

    @Test(arguments: [("max-age=60", 2), ("public, max-age=60", 1)])
    func aRequestWithAuthorizationIsCachedOnlyWhenPublic(control: String, expectedRequests: Int) async throws {
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: control)], body: "mine"))
        defer { server.stop() }
        let endpoint = endpoint(server, "me", cache: makeCache(), headers: ["Authorization": "Bearer token"])
        #expect(await endpoint.request(type: String.self) == .success("mine"))
        #expect(await endpoint.request(type: String.self) == .success("mine"))
        #expect(server.requests.count == expectedRequests)
    }

    @Test func privateIsStoredInThisPrivateCache() async throws {
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "private, max-age=60")], body: "p"))
        defer { server.stop() }
        let endpoint = endpoint(server, "private", cache: makeCache())
        _ = await endpoint.request(type: String.self)
        _ = await endpoint.request(type: String.self)
        #expect(server.requests.count == 1)
    }

    @Test func setCookieIsNeverStored() async throws {
        let server = try TestServer(
            response: .status(
                200,
                headers: [
                    (name: "Cache-Control", value: "max-age=60"),
                    (name: "Set-Cookie", value: "sid=abc; Path=/"),
                    (name: "X-Kept", value: "yes"),
                ], body: "page"))
        defer { server.stop() }
        let cache = makeCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)"))
        defer { if let directory = cache.directory { try? FileManager.default.removeItem(at: directory) } }
        let endpoint = endpoint(server, "page", cache: cache)
        let first = try await endpoint.response(type: String.self).get()
        #expect(first.headers["Set-Cookie"] == "sid=abc; Path=/")  // the caller of the exchange gets it
        let hit = try await endpoint.response(type: String.self).get()
        #expect(server.requests.count == 1)
        #expect(hit.headers["Set-Cookie"] == nil)
        #expect(hit.headers["X-Kept"] == "yes")
        let files = try FileManager.default.contentsOfDirectory(at: try #require(cache.directory), includingPropertiesForKeys: nil)
        #expect(files.count == 1)
        for file in files {
            #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("sid=abc"))
        }
    }

    @Test func theDiskCacheSurvivesANewInstance() async throws {
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "max-age=600")], body: "on disk"))
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(await endpoint(server, "file", cache: makeCache(directory: directory)).request(type: String.self) == .success("on disk"))
        let relaunched = makeCache(directory: directory)
        #expect(relaunched.memoryUsage == 0)
        #expect(relaunched.diskUsage > 0)
        clock.advance(100)
        let response = try await endpoint(server, "file", cache: relaunched).response(type: String.self).get()
        #expect(response.value == "on disk")
        #expect(response.headers["Age"] == "100")
        #expect(server.requests.count == 1)
    }

    @Test func theDiskBudgetIsKept() async throws {
        let server = try TestServer(
            response: .status(
                200, headers: [(name: "Cache-Control", value: "max-age=600")],
                body: String(repeating: "z", count: 400)))
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = clock
        let cache = ResponseCache(memoryBudget: 0, directory: directory, diskBudget: 2000, now: { clock.now })
        for index in 0..<10 {
            clock.advance(1)
            _ = await endpoint(server, "n\(index)", cache: cache).request(type: String.self)
        }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        let bytes = try files.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        #expect(bytes <= 2000)
        #expect(files.count >= 2)
        #expect(cache.contains(try #require(URL(string: server.baseURL + "/n9"))))
        #expect(!cache.contains(try #require(URL(string: server.baseURL + "/n0"))))
    }

    @Test func varyIsHonoured() async throws {
        let server = try TestServer { request in
            .status(
                200, headers: [(name: "Cache-Control", value: "max-age=60"), (name: "Vary", value: "Accept-Language")],
                body: request.header("Accept-Language") ?? "none")
        }
        defer { server.stop() }
        let cache = makeCache()
        let english = endpoint(server, "greeting", cache: cache, headers: ["Accept-Language": "en"])
        let french = endpoint(server, "greeting", cache: cache, headers: ["Accept-Language": "fr"])
        #expect(await english.request(type: String.self) == .success("en"))
        #expect(await english.request(type: String.self) == .success("en"))
        #expect(server.requests.count == 1)
        #expect(await french.request(type: String.self) == .success("fr"))
        #expect(server.requests.count == 2)
    }

    @Test func policiesReloadAndReturnCacheElseLoad() async throws {
        let served = Locked(0)
        let server = try TestServer { _ in
            let number = served.withLock { count -> Int in
                count += 1
                return count
            }
            return .status(200, headers: [(name: "Cache-Control", value: "max-age=10")], body: "v\(number)")
        }
        defer { server.stop() }
        let cache = makeCache()
        #expect(await endpoint(server, "feed", cache: cache).request(type: String.self) == .success("v1"))
        #expect(await endpoint(server, "feed", cache: cache, policy: .reloadIgnoringCache).request(type: String.self) == .success("v2"))
        clock.advance(3600)
        #expect(await endpoint(server, "feed", cache: cache, policy: .returnCacheElseLoad).request(type: String.self) == .success("v2"))
        #expect(await endpoint(server, "feed", cache: cache, policy: .disabled).request(type: String.self) == .success("v3"))
        #expect(server.requests.count == 3)
    }

    @Test func aDownloadToAFileIsNotStored() async throws {
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "max-age=60")], body: "file body"))
        defer { server.stop() }
        let cache = makeCache()
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        _ = try await endpoint(server, "blob", cache: cache).download(to: destination).get()
        #expect(try String(contentsOf: destination, encoding: .utf8) == "file body")
        #expect(cache.memoryUsage == 0)
    }

    @Test func aDownloadIsAnsweredFromTheCacheIntoItsFile() async throws {
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "max-age=60")], body: "stored body"))
        defer { server.stop() }
        let cache = makeCache()
        let endpoint = endpoint(server, "asset", cache: cache)
        #expect(await endpoint.request(type: String.self) == .success("stored body"))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        _ = try await endpoint.download(to: destination).get()
        #expect(try String(contentsOf: destination, encoding: .utf8) == "stored body")
        #expect(server.requests.count == 1)
    }

    @Test(arguments: ["nan", "inf", "-5", "1e400", "99999999999999999999", "9223372036854775807"])
    func anyAgeHeaderIsSafe(age: String) async throws {
        let server = try TestServer(
            response: .status(
                200,
                headers: [
                    (name: "Cache-Control", value: "max-age=60"), (name: "Age", value: age),
                    (name: "ETag", value: "\"e\""),
                ], body: "aged"))
        defer { server.stop() }
        let endpoint = endpoint(server, "aged", cache: makeCache())
        #expect(await endpoint.request(type: String.self) == .success("aged"))
        let second = try await endpoint.response(type: String.self).get()
        #expect(second.value == "aged")
        #expect(second.headers["Age"].flatMap { Int($0) } != nil)
    }
}
