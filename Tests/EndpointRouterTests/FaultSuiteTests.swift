import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One hostile server behaviour and what the caller must get for it.
///
/// Every request carries credentials in a query value, an `Authorization` and a `Cookie` header (the
/// library refuses userinfo in `host`; it is tried through redirects in the security tests), so that
/// the descriptions of the errors can be checked for leaks (``FaultCredentials``).
struct Fault: Sendable, CustomTestStringConvertible {
    /// What the caller asks the body to be decoded as.
    enum Decoded: Sendable {
        case data
        case string
        case todo
        case empty
    }

    /// The outcome the caller must see.
    enum Expected: Sendable, CustomStringConvertible {
        case transport(URLError.Code)
        case timedOut
        case cancelled
        case responseTooLarge(limit: Int)
        case decodingFailed
        /// Success, with a body of this many bytes.
        case success(bodyBytes: Int)

        var description: String {
            switch self {
            case .transport(let code): ".transport(\(code.rawValue))"
            case .timedOut: ".timedOut"
            case .cancelled: ".cancelled"
            case .responseTooLarge(let limit): ".responseTooLarge(\(limit))"
            case .decodingFailed: ".decodingFailed"
            case .success(let bytes): "success(\(bytes) bytes)"
            }
        }

        func matches(_ result: Result<Int, HTTPClientError>) -> Bool {
            switch (self, result) {
            case (.transport(let code), .failure(.transport(let error))): error.code == code
            case (.timedOut, .failure(.timedOut)), (.cancelled, .failure(.cancelled)): true
            case (.responseTooLarge(let limit), .failure(.responseTooLarge(let seen))): limit == seen
            case (.decodingFailed, .failure(.decodingFailed)): true
            case (.success(let bytes), .success(let seen)): bytes == seen
            default: false
            }
        }
    }

    /// A running server: where it is and how to stop it.
    struct Served: Sendable {
        let baseURL: String
        let stop: @Sendable () -> Void
    }

    let name: String
    var timeout: Double = 1
    var decoded: Decoded = .data
    var maxResponseSize: Int? = 1024 * 1024
    /// URLSession on Linux keeps reading a fast body for up to seconds after a cancel, holding its
    /// work queue, so the next request on the same transport waits (the corelibs gap recorded in
    /// AbandonedTransferTests); it still succeeds, and its latency is a recorded known issue.
    var stallsTheNextRequest = false
    /// Cancels the calling task this long after the request started.
    var cancelAfter: Duration?
    let expected: Expected
    let serve: @Sendable () throws -> Served

    var testDescription: String { name }

    static func server(_ response: ScriptedResponse) -> @Sendable () throws -> Served {
        {
            let server = try TestServer(response: response)
            return Served(baseURL: server.baseURL, stop: server.stop)
        }
    }

    static func raw(_ steps: [RawServer.Step]) -> @Sendable () throws -> Served {
        {
            let server = try RawServer(steps: steps)
            return Served(baseURL: server.baseURL, stop: server.stop)
        }
    }

    static let mebibyte = 1024 * 1024

    /// Every fault of issue #8's fault list, plus the variants the URLError mapping distinguishes.
    static let all: [Fault] = [
        Fault(name: "connection refused", expected: .transport(.cannotConnectToHost)) {
            let port = try RawServer.closedPort()
            return Served(baseURL: "http://127.0.0.1:\(port)", stop: {})
        },
        Fault(name: "reset before the status line", expected: .transport(.networkConnectionLost), serve: raw([.reset])),
        Fault(name: "closed without a response", expected: .transport(.networkConnectionLost), serve: raw([])),
        Fault(
            name: "closed mid-body (Content-Length)", expected: .transport(.networkConnectionLost),
            serve: server(.stream(headers: [("Content-Length", "100000")], total: 1000))),
        Fault(
            name: "closed mid-body (chunked)", expected: .transport(.networkConnectionLost),
            serve: raw([.send(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\nabc".utf8))])),
        Fault(
            name: "reset mid-body", expected: .transport(.networkConnectionLost),
            serve: raw([.send(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc".utf8)), .pause(0.05), .reset])),
        Fault(
            name: "malformed status line", expected: .transport(.cannotParseResponse),
            serve: raw([.send(Array("HTTX/1.1 two-hundred OK\r\n\r\n".utf8))])),
        Fault(
            name: "unsupported HTTP version", expected: .transport(.cannotParseResponse),
            serve: raw([.send(Array("HTTP/7.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))])),
        Fault(
            name: "header line without a colon", expected: .transport(.cannotParseResponse),
            serve: raw([.send(RawServer.head(rawHeader: Array("NoColonHere".utf8)))])),
        Fault(
            name: "header value not UTF-8", expected: .transport(.cannotParseResponse),
            serve: raw([.send(RawServer.head(rawHeader: Array("X-Name: caf".utf8) + [0xE9]))])),
        Fault(name: "64 KiB header section", expected: .success(bodyBytes: 0), serve: server(.withHeaderBlock(bytes: 64 * 1024))),
        Fault(
            name: "1 MiB header section", expected: .transport(.cannotParseResponse),
            serve: server(.withHeaderBlock(bytes: mebibyte))),
        Fault(
            name: "1 MiB header line", expected: .transport(.cannotParseResponse),
            serve: server(.withHeaderBlock(bytes: mebibyte, lineLength: mebibyte))),
        Fault(
            name: "body above the size limit", expected: .responseTooLarge(limit: mebibyte),
            serve: server(.stream(total: 8 * Int64(mebibyte)))),
        Fault(
            name: "gzip bomb", stallsTheNextRequest: true, expected: .responseTooLarge(limit: mebibyte),
            serve: {
                let bomb = try ScriptedResponse.gzipBomb(expandedBytes: 64 * mebibyte)
                return try server(.gzipEncoded(bomb))()
            }),
        Fault(
            name: "corrupt gzip", expected: .transport(.cannotDecodeContentData),
            serve: server(.gzipEncoded(ScriptedResponse.corruptGzip))),
        Fault(
            name: "slow drip past the deadline", timeout: 0.5, expected: .timedOut,
            serve: server(.stream(chunk: 16, total: 100_000, interval: 0.05))),
        Fault(name: "server that never answers", timeout: 0.5, expected: .timedOut, serve: server(.hang)),
        Fault(
            name: "endless body with cancel", timeout: 5, maxResponseSize: nil, stallsTheNextRequest: true,
            cancelAfter: .milliseconds(300), expected: .cancelled, serve: server(.stream(chunk: 16 * 1024))),
        Fault(
            name: "redirect loop", expected: .transport(.httpTooManyRedirects),
            serve: server(.redirect(status: 302, location: "/loop"))),
        Fault(
            name: "Location that is not a URL", expected: .transport(.badServerResponse),
            serve: server(.redirect(status: 301, location: "http://[::1"))),
        Fault(
            name: "invalid UTF-8 requested as String", decoded: .string, expected: .decodingFailed,
            serve: server(.status(200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data([0x61, 0xFF, 0xFE])))),
        Fault(
            name: "204 with a body", decoded: .empty, expected: .success(bodyBytes: 0),
            serve: raw([.send(Array("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello".utf8))])),
        Fault(
            name: "JSON of the wrong shape", decoded: .todo, expected: .decodingFailed,
            serve: server(.json(#"{"userId":"one","id":[],"title":1}"#))),
        Fault(
            name: "empty body where JSON is expected", decoded: .todo, expected: .decodingFailed,
            serve: server(.status(200, headers: [("Content-Type", "application/json")], body: Data()))),
    ]

    /// Sends one request with credentials to `baseURL` through `transport`; the result
    /// keeps the body's byte count on success.
    func request(to baseURL: String, through transport: any HTTPTransport) async -> Result<Int, HTTPClientError> {
        let endpoint = TestEndpoint(
            host: baseURL, endpoint: "x", parameters: FaultCredentials.query,
            headers: FaultCredentials.headers, timeout: timeout, maxResponseSize: maxResponseSize,
            transport: transport)
        switch decoded {
        case .data: return await endpoint.request(type: Data.self).map(\.count)
        case .string: return await endpoint.request(type: String.self).map(\.utf8.count)
        case .todo: return await endpoint.request(type: Todo.self).map { _ in 0 }
        case .empty: return await endpoint.response(type: Data.self).map(\.data.count)
        }
    }
}

/// The secrets every fault and security request carries, and where.
enum FaultCredentials {
    static let password = "hunter2"
    static let querySecret = "SECRET-QUERY-VALUE"
    static let token = "SECRET-BEARER-TOKEN"
    static let cookie = "SECRET-COOKIE"
    static let all = [password, querySecret, token, cookie]

    static var query: [String: Any] { ["api_key": querySecret] }
    static let headers = ["Authorization": "Bearer \(token)", "Cookie": "sid=\(cookie)"]

    /// `http://user:hunter2@host:port` for `http://host:port`.
    static func withUserinfo(_ baseURL: String) -> String {
        baseURL.replacingOccurrences(of: "://", with: "://user:\(password)@")
    }

    /// The secrets that appear in `text`.
    static func leaked(in text: String) -> [String] {
        all.filter { text.contains($0) }
    }
}

extension Serialized {
    /// Issue #8's fault list against the default transport: each fault ends with its specific typed
    /// error within the deadline plus 100 ms, and the same transport then serves a healthy request.
    @Suite("Fault suite on URLSessionTransport")
    struct FaultSuiteTests {
        /// 100 ms; 500 ms under a sanitizer (`ENDPOINTROUTER_SANITIZER`, set by `.ci/run`), which slows
        /// every call several times: there the typed errors are under test, not the figure, which the
        /// unsanitized `swift test` step holds to 100 ms (a cancel took 126 and 138 ms under
        /// AddressSanitizer in two CI runs).
        static let slack = Duration.milliseconds(ProcessInfo.processInfo.environment["ENDPOINTROUTER_SANITIZER"] == nil ? 100 : 500)

        /// Whether a small request through a fresh URLSession transport is answered within 500 ms,
        /// asked again for up to 60 s.
        static func urlSessionAnswers(_ host: String) async -> Bool {
            let end = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < end {
                let start = ContinuousClock.now
                let probe = await TestEndpoint(host: host, endpoint: "probe", timeout: 30, transport: URLSessionTransport())
                    .request(type: Data.self)
                if case .success = probe, ContinuousClock.now - start < .milliseconds(500) { return true }
            }
            return false
        }

        @Test(arguments: Fault.all)
        func faultEndsWithItsTypedErrorInTimeAndTheTransportStillWorks(_ fault: Fault) async throws {
            let served = try await offThePool { try fault.serve() }
            defer { served.stop() }
            let healthy = try TestServer(response: .json(#"{"ok":true}"#))
            defer { healthy.stop() }
            // corelibs runs every URLSession of the process on one work queue, and the previous
            // case's cancelled fast body can hold it for seconds (the known issue below): a redirect
            // loop started then timed out in a CI run. Each case starts once that queue answers again.
            #expect(await Self.urlSessionAnswers(healthy.baseURL), "URLSession's work queue stayed busy for 60 s")
            let transport = URLSessionTransport()

            let clock = ContinuousClock()
            let start = clock.now
            let call = Task { await fault.request(to: served.baseURL, through: transport) }
            var cancelledAt: ContinuousClock.Instant?
            if let delay = fault.cancelAfter {
                try await Task.sleep(for: delay)
                cancelledAt = clock.now
                call.cancel()
            }
            let result = await call.value
            let ended = clock.now
            let elapsed = ended - start
            print("fault timing: \(fault.name): \(result.failure.map { "\($0)".prefix(60) } ?? "success") in \(elapsed)")

            #expect(fault.expected.matches(result), "\(fault.name): expected \(fault.expected), got \(result)")
            #expect(
                elapsed < .milliseconds(Int(fault.timeout * 1000)) + Self.slack,
                "\(fault.name) took \(elapsed), deadline \(fault.timeout) s")
            if case .timedOut = fault.expected {
                #expect(elapsed >= .milliseconds(Int(fault.timeout * 1000)), "\(fault.name) timed out early: \(elapsed)")
            }
            if let cancelledAt {
                #expect(ended - cancelledAt < Self.slack, "\(fault.name): cancel took \(ended - cancelledAt)")
            }
            if case .failure(let error) = result {
                #expect(FaultCredentials.leaked(in: error.description).isEmpty, "\(fault.name): \(error.description)")
            }

            // The next request gets a generous deadline so that a slow recovery is measured, not
            // mistaken for a failure; how slow it may be is checked separately.
            let nextStart = clock.now
            let next = await TestEndpoint(host: healthy.baseURL, endpoint: "next", timeout: 30, transport: transport)
                .request(type: Data.self)
            let nextElapsed = clock.now - nextStart
            print("fault timing: \(fault.name): the next request took \(nextElapsed)")
            let nextBody = next.map { String(decoding: $0, as: UTF8.self) }
            if fault.stallsTheNextRequest {
                // How long corelibs takes to act on the cancel depends on the machine's load: in a
                // busy CI run it outlasted the next request's 30 s. A timeout is that same gap; any
                // other answer is a defect.
                let timedOut = if case .failure(.timedOut) = nextBody { true } else { false }
                if !timedOut {
                    #expect(nextBody == .success(#"{"ok":true}"#), "the request after \(fault.name) on the same transport")
                }
                withKnownIssue("URLSession on Linux holds its work queue while it drains a cancelled fast body", isIntermittent: true) {
                    #expect(nextBody == .success(#"{"ok":true}"#), "the request after \(fault.name): \(nextBody)")
                    #expect(nextElapsed < .seconds(1), "the request after \(fault.name) took \(nextElapsed)")
                }
            } else {
                #expect(nextBody == .success(#"{"ok":true}"#), "the request after \(fault.name) on the same transport")
                #expect(nextElapsed < .seconds(1), "the request after \(fault.name) took \(nextElapsed)")
            }
        }

    }
}
