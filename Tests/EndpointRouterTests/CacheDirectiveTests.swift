import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

/// The cache rules ``CachingMiddleware``'s documentation states that no other test sent: `s-maxage`
/// ignored, `Vary: *` never stored, a caller's own validator or `Range` passed through, and a
/// broken disk layer never failing a call.
@Suite("HTTP cache: the documented directives")
struct CacheDirectiveTests {
    let base = CachingMiddlewareTests()

    @Test(arguments: ["s-maxage=600", "max-age=0, s-maxage=600"])
    func sMaxAgeIsIgnored(control: String) async throws {
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: control)], body: "shared"))
        defer { server.stop() }
        let cache = base.makeCache()
        let endpoint = base.endpoint(server, "shared", cache: cache)
        #expect(await endpoint.request(type: String.self) == .success("shared"))
        #expect(await endpoint.request(type: String.self) == .success("shared"))
        #expect(server.requests.count == 2, "s-maxage is for shared caches: nothing to serve from here")
        #expect(cache.memoryUsage == 0)
    }

    @Test func varyStarIsNeverStored() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServer(
            response: .status(
                200, headers: [(name: "Cache-Control", value: "max-age=600"), (name: "Vary", value: "*")], body: "varies"))
        defer { server.stop() }
        let cache = base.makeCache(directory: directory)
        let endpoint = base.endpoint(server, "star", cache: cache)
        #expect(await endpoint.request(type: String.self) == .success("varies"))
        #expect(await endpoint.request(type: String.self) == .success("varies"))
        #expect(server.requests.count == 2)
        #expect(cache.memoryUsage == 0)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        #expect(files.isEmpty, "\(files)")
    }

    /// With a fresh entry stored, a request carrying its own validator or range goes to the server
    /// with that header as the caller wrote it, and the answer (a 304 or a 206) is not stored.
    @Test(arguments: [
        ("If-None-Match", "\"caller-tag\"", 304),
        ("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT", 304),
        ("Range", "bytes=0-1", 206),
    ])
    func aCallersOwnValidatorOrRangeIsPassedThrough(name: String, value: String, status: Int) async throws {
        let server = try TestServer { request in
            if request.header(name) != nil {
                return .status(status, headers: [(name: "Cache-Control", value: "max-age=600")], body: status == 206 ? "fr" : "")
            }
            return .status(200, headers: [(name: "Cache-Control", value: "max-age=600"), (name: "ETag", value: "\"v1\"")], body: "fresh")
        }
        defer { server.stop() }
        let cache = base.makeCache()
        let plain = base.endpoint(server, "doc", cache: cache)
        #expect(await plain.request(type: String.self) == .success("fresh"))
        let usage = cache.memoryUsage
        #expect(usage > 0)

        var own = base.endpoint(server, "doc", cache: cache, headers: [name: value])
        own.options.cachePolicy = .useProtocol
        let answer = await own.response(type: Data.self)
        #expect(server.requests.count == 2, "the request reached the server")
        #expect(server.requests.last?.header(name) == value, "with the caller's header unchanged")
        #expect(server.requests.last?.header(name == "If-None-Match" ? "If-Modified-Since" : "If-None-Match") == nil)
        if status == 206 {
            #expect(try answer.get().statusCode == 206)
        } else if case .failure(.unacceptableStatusCode(let response)) = answer {
            #expect(response.statusCode == 304, "the caller's 304 is the caller's to handle")
        } else {
            Issue.record("a 304 to the caller's own validator should reach the caller, got \(answer)")
        }
        #expect(cache.memoryUsage == usage, "that answer is not stored")
        #expect(await plain.request(type: String.self) == .success("fresh"), "the stored entry still serves plain requests")
        #expect(server.requests.count == 2)
    }

    @Test func aCorruptCacheFileNeverFailsACall() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "max-age=600")], body: "fresh"))
        defer { server.stop() }
        #expect(
            await base.endpoint(server, "doc", cache: base.makeCache(directory: directory)).request(type: String.self) == .success("fresh"))
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty)
        for file in files { try Data("not a cache entry \u{0}\u{1}".utf8).write(to: file) }

        let relaunched = base.makeCache(directory: directory)
        #expect(await base.endpoint(server, "doc", cache: relaunched).request(type: String.self) == .success("fresh"))
        #expect(server.requests.count == 2, "the unreadable file was skipped and the server asked again")
    }

    @Test func aDirectoryThatIsAFileNeverFailsACall() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data("a regular file".utf8).write(to: path)
        let server = try TestServer(response: .status(200, headers: [(name: "Cache-Control", value: "max-age=600")], body: "fresh"))
        defer { server.stop() }
        let cache = base.makeCache(directory: path)
        let endpoint = base.endpoint(server, "doc", cache: cache)
        #expect(await endpoint.request(type: String.self) == .success("fresh"))
        #expect(await endpoint.request(type: String.self) == .success("fresh"), "memory still serves it")
        #expect(server.requests.count == 1)
        #expect(try String(contentsOf: path, encoding: .utf8) == "a regular file", "the file was left alone")
    }
}
