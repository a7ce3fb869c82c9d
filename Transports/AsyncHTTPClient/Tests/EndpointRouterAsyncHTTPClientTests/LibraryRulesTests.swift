import EndpointRouter
import EndpointRouterAsyncHTTPClient
import Foundation
import HTTPTestServer
import Testing

/// The library's rules hold on the wire through AsyncHTTPClient: redirects are the library's (with
/// its credential stripping), bad headers never leave, and the body limit and errors are typed.
@Suite("Library rules through AsyncHTTPClientTransport")
struct LibraryRulesTests {
    static let credentials: HeaderFields = [
        "Authorization": "Bearer SECRET", "Cookie": "sid=SECRET", "X-API-Key": "SECRET", "X-Custom": "kept",
    ]

    @Test("A redirect is followed by the library, once, to the same origin with credentials kept")
    func sameOriginRedirect() async throws {
        let server = try TestServer { request in
            request.path == "/start" ? .redirect(status: 302, location: "/landing") : .json(#"{"landed":true}"#)
        }
        defer { server.stop() }
        let result = await ServerEndpoint(
            host: server.baseURL, endpoint: "start",
            middlewares: [AddHeaders(headers: Self.credentials)]
        )
        .request(type: [String: Bool].self)
        #expect(try result.get() == ["landed": true])
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests.map(\.path) == ["/start", "/landing"])
        #expect(requests[1].header("Authorization") == "Bearer SECRET", "same origin: credentials stay")
    }

    @Test("Credentials never reach another origin", arguments: [301, 302, 303, 307, 308])
    func crossOriginRedirectStripsCredentials(_ status: Int) async throws {
        let other = try TestServer(response: .json("{}"))
        defer { other.stop() }
        let server = try TestServer(response: .redirect(status: status, location: other.baseURL + "/landing"))
        defer { server.stop() }
        _ = try await ServerEndpoint(
            host: server.baseURL, endpoint: "start", method: .post,
            body: .data(Data("payload".utf8), contentType: "text/plain"),
            redirectPolicy: RedirectPolicy(sensitiveHeaders: ["x-api-key"]),
            middlewares: [AddHeaders(headers: Self.credentials)]
        )
        .request(type: EmptyResponse.self).get()
        #expect(server.requests.first?.header("Authorization") == "Bearer SECRET")
        let landed = try #require(other.requests.first)
        #expect(!landed.headers.contains { $0.value.contains("SECRET") }, "\(landed.headers)")
        #expect(landed.header("X-Custom") == "kept")
        #expect(landed.method == ([307, 308].contains(status) ? "POST" : "GET"))
        #expect(landed.bodyText == ([307, 308].contains(status) ? "payload" : ""))
    }

    @Test("The hop limit is the library's, not AsyncHTTPClient's")
    func hopLimit() async throws {
        let server = try TestServer { request in .redirect(status: 302, location: request.path + "x") }
        defer { server.stop() }
        let result = await ServerEndpoint(host: server.baseURL, endpoint: "loop", redirectPolicy: RedirectPolicy(maximumHops: 3))
            .request(type: EmptyResponse.self)
        #expect(result.failure?.urlErrorCode == .httpTooManyRedirects)
        #expect(server.requests.count == 4, "the first request and 3 hops")
    }

    @Test("A header value with a line break never leaves the process", arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb"])
    func headerInjectionIsRefused(_ value: String) async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        let result = await ServerEndpoint(
            host: server.baseURL, endpoint: "x",
            middlewares: [AddHeaders(headers: ["X-Trace": value])]
        )
        .request(type: EmptyResponse.self)
        guard case .invalidHeader = result.failure else {
            Issue.record("expected .invalidHeader, got \(result)")
            return
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.connectionCount == 0, "nothing reached the server")
    }

    @Test("A body over maxResponseSize fails with .responseTooLarge")
    func sizeLimit() async throws {
        let server = try TestServer(response: .stream(total: 64 * 1024 * 1024))
        defer { server.stop() }
        let result = await ServerEndpoint(host: server.baseURL, endpoint: "big", maxResponseSize: 1024 * 1024)
            .request(type: Data.self)
        #expect(result.failure == .responseTooLarge(limit: 1024 * 1024))
    }

    @Test("Repeated response fields stay separate and in order")
    func repeatedFields() async throws {
        let server = try TestServer(response: .status(200, headers: [("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")], body: "{}"))
        defer { server.stop() }
        let response = try await ServerEndpoint(host: server.baseURL, endpoint: "cookies").response(type: EmptyResponse.self).get()
        #expect(response.headers.values(for: "set-cookie") == ["a=1", "b=2"])
    }

    @Test("Nothing listening: .transport(.cannotConnectToHost), without retrying until the connect timeout")
    func connectionRefused() async throws {
        let port = try {
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            return server.port
        }()
        let start = ContinuousClock.now
        let result = await ServerEndpoint(host: "http://127.0.0.1:\(port)", endpoint: "x").request(type: EmptyResponse.self)
        #expect(result.failure?.urlErrorCode == .cannotConnectToHost, "\(result)")
        // Retrying the connection (AsyncHTTPClient's default, off here) would take the 10 s connect timeout.
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("A file body is streamed from disk, with upload progress")
    func fileUpload() async throws {
        let server = try TestServer(response: .status(201, body: "stored"))
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-upload-\(UUID().uuidString)")
        let content = Data((0..<(3 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let progress = ProgressLog()
        let result = await ServerEndpoint(
            host: server.baseURL, endpoint: "upload", method: .put,
            body: .file(file, contentType: "application/octet-stream")
        )
        .response(type: EmptyResponse.self, uploadProgress: { progress.append($0) })
        #expect(result.failure == nil, "\(result)")
        let received = try #require(server.requests.first)
        #expect(received.body == content)
        #expect(received.header("Content-Length") == "\(content.count)")
        let reports = progress.reports
        // Reports coalesce while the closure runs (the library's ProgressReporter), so their number
        // is not the transport's; what must hold is that the last is the whole file.
        #expect(!reports.isEmpty, "no upload progress was reported")
        #expect(reports.last?.completedBytes == Int64(content.count))
        #expect(reports.last?.expectedBytes == Int64(content.count))
    }

    @Test("A missing body file is a typed error before anything is sent")
    func missingUploadFile() async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-missing-\(UUID().uuidString)")
        // Through the library, which checks the file while building the request...
        let result = await ServerEndpoint(
            host: server.baseURL, endpoint: "upload", method: .post,
            body: .file(missing, contentType: "application/octet-stream")
        )
        .request(type: EmptyResponse.self)
        guard case .encodingFailed = result.failure else {
            Issue.record("expected .encodingFailed, got \(result)")
            return
        }
        // ...and straight to the transport, for a file gone between that check and the send.
        let url = try #require(URL(string: server.baseURL + "/upload"))
        let direct = await sendError(
            AsyncHTTPClientTransport.shared, OutgoingRequest(method: .post, url: url, body: .file(missing)),
            into: RefusingSink(limit: 1024))
        #expect(direct?.urlErrorCode == .fileDoesNotExist, "\(String(describing: direct))")
        #expect(server.requests.isEmpty)
    }
}

/// Upload progress reports, in the order they came.
final class ProgressLog: Sendable {
    private let log = Locked<[TransferProgress]>([])
    func append(_ progress: TransferProgress) { log.withLock { $0.append(progress) } }
    var reports: [TransferProgress] { log.withLock { $0 } }
}

extension HTTPClientError {
    /// The `URLError` code of a `.transport` failure, else `nil`.
    var urlErrorCode: URLError.Code? {
        if case .transport(let error) = self { error.code } else { nil }
    }
}
