import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

/// Every line a test in this file logs, and every cURL command, is checked for the secrets the
/// tests send: header values, query values, JSON values, user names and passwords.
@Suite("Logging middleware and redaction")
struct LoggingMiddlewareTests {
    static let secrets = [
        "bearer-SECRET-1", "proxy-SECRET-2", "cookie-SECRET-3", "apikey-SECRET-4",
        "query-SECRET-5", "json-SECRET-6", "nested-SECRET-7", "user-SECRET-8", "pass-SECRET-9",
        "form-SECRET-10", "setcookie-SECRET-11",
    ]

    /// Collects what a logger writes: the messages and every metadata value.
    final class Collector: Sendable {
        private let lines = Locked<[(LogLevel, String, [String: String])]>([])
        var sink: LogSink { LogSink { level, message, metadata in self.lines.withLock { $0.append((level, message, metadata)) } } }
        var messages: [String] { lines.withLock { $0.map(\.1) } }
        var everything: [String] { lines.withLock { $0.flatMap { [$0.1] + $0.2.keys + $0.2.values } } }
        var metadata: [[String: String]] { lines.withLock { $0.map(\.2) } }
        var levels: [LogLevel] { lines.withLock { $0.map(\.0) } }

        /// Records an issue for every secret found; returns how many lines were checked.
        @discardableResult
        func expectNoSecrets(sourceLocation: SourceLocation = #_sourceLocation) -> Int {
            let all = everything
            for line in all {
                for secret in LoggingMiddlewareTests.secrets where line.contains(secret) {
                    Issue.record("secret \(secret) logged in: \(line)", sourceLocation: sourceLocation)
                }
            }
            return all.count
        }
    }

    static let redaction = Redaction(headers: ["X-API-Key"], queryKeys: ["access_token"], bodyKeys: ["password", "refresh_token"])

    static func echoing(status: Int = 200) -> ClosureTransport {
        ClosureTransport { _ in
            IncomingResponse(statusCode: status, headers: ["Set-Cookie": "sid=setcookie-SECRET-11"], body: Data("{\"ok\":true}".utf8))
        }
    }

    @Test func requestAndResponseLinesCarryTheFactsAndNoSecrets() async throws {
        let collector = Collector()
        let logger = LoggingMiddleware(
            redaction: Self.redaction, includesHeaders: true, includesBodies: true,
            curl: true, sink: collector.sink)
        let endpoint = MiddlewareEndpoint(
            host: "https://api.example.com", endpoint: "v1/login",
            headers: [
                "Authorization": "Bearer bearer-SECRET-1", "proxy-authorization": "Basic proxy-SECRET-2",
                "COOKIE": "a=cookie-SECRET-3", "x-api-key": "apikey-SECRET-4", "Accept": "application/json",
            ],
            method: .post,
            body: .data(
                Data(#"{"password":"json-SECRET-6","user":"ann","devices":[{"name":"phone","Refresh_Token":"nested-SECRET-7"}]}"#.utf8),
                contentType: "application/json"),
            transport: Self.echoing(), middlewares: [logger])
        var request = try endpoint.makeRequest()
        // The library refuses credentials in the host; a middleware could still put them in the URL.
        request.url = try #require(
            URL(string: "https://user-SECRET-8:pass-SECRET-9@api.example.com/v1/login?ACCESS_TOKEN=query-SECRET-5&page=2"))
        _ = try await logger.intercept(request, context: testContext(endpoint: "AuthAPI.login")) { request, _ throws(HTTPClientError) in
            IncomingResponse(
                statusCode: 201, headers: ["Set-Cookie": "sid=setcookie-SECRET-11"], body: Data("{\"ok\":true}".utf8), url: request.url)
        }
        let messages = collector.messages
        #expect(messages.count == 3)
        let requestLine = try #require(messages.first)
        #expect(requestLine.hasPrefix("→ AuthAPI.login #1 POST https://api.example.com/v1/login?ACCESS_TOKEN=<redacted>&page=2"))
        #expect(requestLine.contains("Authorization: <redacted>"))
        #expect(requestLine.contains("x-api-key: <redacted>"))
        #expect(requestLine.contains("Accept: application/json"))
        #expect(requestLine.contains("\"user\":\"ann\""))
        let responseLine = try #require(messages.last)
        #expect(responseLine.hasPrefix("← AuthAPI.login #1 POST https://api.example.com/v1/login?ACCESS_TOKEN=<redacted>&page=2 201 in "))
        #expect(responseLine.hasSuffix("ms, 11 bytes"))
        #expect(collector.metadata.last?["status"] == "201")
        #expect(collector.metadata.last?["attempt"] == "1")
        #expect(collector.metadata.last?["endpoint"] == "AuthAPI.login")
        #expect(collector.expectNoSecrets() > 10)
    }

    @Test func theCURLCommandIsRedactedAndQuotedForTheShell() async throws {
        let collector = Collector()
        let logger = LoggingMiddleware(redaction: Self.redaction, curl: true, sink: collector.sink)
        let request = OutgoingRequest(
            method: .put, url: try #require(URL(string: "https://user-SECRET-8@api.example.com/notes?access_token=query-SECRET-5")),
            headers: [
                "Authorization": "Bearer bearer-SECRET-1", "X-Note": "it's; $(rm -rf /) `x`",
                "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: .data(Data("title=a%27b&Password=form-SECRET-10&access%5Ftoken=query-SECRET-5".utf8)))
        _ = try await logger.intercept(request, context: testContext()) { _, _ throws(HTTPClientError) in IncomingResponse(statusCode: 204)
        }
        let command = try #require(collector.messages.first { $0.hasPrefix("curl ") })
        collector.expectNoSecrets()
        // The shell must see each argument exactly as meant: run it with printf instead of curl.
        let arguments = try await shellWords(of: String(command.dropFirst("curl ".count)))
        #expect(
            arguments == [
                "-X", "PUT", "https://api.example.com/notes?access_token=<redacted>",
                "-H", "Authorization: <redacted>", "-H", "X-Note: it's; $(rm -rf /) `x`",
                "-H", "Content-Type: application/x-www-form-urlencoded",
                "--data-binary", "title=a%27b&Password=<redacted>&access%5Ftoken=<redacted>",
            ])
    }

    /// Nothing listed: the defaults alone hide what looks like a credential, in the lines, the
    /// metadata and the cURL command, and keep what does not.
    @Test func theDefaultsRedactCredentialLookingHeadersAndQueryKeys() async throws {
        let collector = Collector()
        let logger = LoggingMiddleware(includesHeaders: true, includesBodies: true, curl: true, sink: collector.sink)
        let request = OutgoingRequest(
            method: .post,
            url: try #require(
                URL(string: "https://api.example.com/v1/x?api_key=query-SECRET-5&X-Goog-Signature=json-SECRET-6&sig=nested-SECRET-7&page=2")
            ),
            headers: [
                "X-Api-Key": "apikey-SECRET-4", "X-Auth-Token": "bearer-SECRET-1", "X-Monkey": "banana", "Keep-Alive": "timeout=5",
                "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: .data(Data("client_secret=form-SECRET-10&grant_type=client_credentials".utf8)))
        _ = try await logger.intercept(request, context: testContext()) { _, _ throws(HTTPClientError) in IncomingResponse(statusCode: 204)
        }
        #expect(collector.expectNoSecrets() > 5)
        let requestLine = try #require(collector.messages.first)
        #expect(requestLine.contains("x?api_key=<redacted>&X-Goog-Signature=<redacted>&sig=<redacted>&page=2"))
        #expect(requestLine.contains("X-Api-Key: <redacted>, X-Auth-Token: <redacted>, X-Monkey: banana, Keep-Alive: timeout=5"))
        #expect(requestLine.contains("client_secret=<redacted>&grant_type=client_credentials"))
        let command = try #require(collector.messages.first { $0.hasPrefix("curl ") })
        #expect(command.contains("'X-Api-Key: <redacted>'"))
        #expect(command.contains("'X-Monkey: banana'"))
    }

    @Test func aRevealedNameIsLoggedInClear() async throws {
        let collector = Collector()
        let logger = LoggingMiddleware(
            redaction: Redaction(revealing: ["Idempotency-Key", "session"]), includesHeaders: true, curl: true, sink: collector.sink)
        let request = OutgoingRequest(
            url: try #require(URL(string: "https://api.example.com/x?session=s-1&token=query-SECRET-5")),
            headers: ["Idempotency-Key": "idem-1", "Authorization": "Bearer bearer-SECRET-1"])
        _ = try await logger.intercept(request, context: testContext()) { _, _ throws(HTTPClientError) in IncomingResponse(statusCode: 204)
        }
        collector.expectNoSecrets()
        #expect(collector.messages.first?.contains("Idempotency-Key: idem-1") == true)
        #expect(collector.messages.first?.contains("?session=s-1&token=<redacted>") == true)
        #expect(collector.messages.contains { $0.hasPrefix("curl ") && $0.contains("Authorization: <redacted>") })
    }

    @Test func aBodyThatCannotBeRedactedIsNotWritten() async throws {
        let collector = Collector()
        let logger = LoggingMiddleware(redaction: Self.redaction, includesBodies: true, curl: true, sink: collector.sink)
        let request = OutgoingRequest(
            method: .post, url: try #require(URL(string: "https://api.example.com/raw")),
            headers: ["Content-Type": "text/plain"], body: .data(Data("password=form-SECRET-10".utf8)))
        _ = try await logger.intercept(request, context: testContext()) { _, _ throws(HTTPClientError) in IncomingResponse(statusCode: 200)
        }
        collector.expectNoSecrets()
        #expect(collector.messages.first?.contains("body 23 bytes") == true)
        #expect(collector.messages.contains { $0.contains("# body of 23 bytes left out") })
    }

    @Test func aFailureIsLoggedWithoutTheErrorText() async throws {
        let collector = Collector()
        let logger = LoggingMiddleware(redaction: Self.redaction, sink: collector.sink)
        let url = try #require(URL(string: "https://api.example.com/x?access_token=query-SECRET-5"))
        let result = await Deadline.capture { () throws(HTTPClientError) in
            try await logger.intercept(OutgoingRequest(url: url), context: testContext()) { _, _ throws(HTTPClientError) in
                throw .transport(URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "failed for \(url)"]))
            }
        }
        #expect(result.failure != nil)
        #expect(collector.messages.last?.contains("failed in") == true)
        #expect(collector.messages.last?.contains("transport(-1004)") == true)
        #expect(collector.levels == [.info, .warning])
        collector.expectNoSecrets()
    }

    @Test func aRealCallThroughTheServerLogsEachAttemptRedacted() async throws {
        let server = try TestServer { request in
            .json("{\"n\":1}", headers: [(name: "Set-Cookie", value: "sid=setcookie-SECRET-11")])
        }
        defer { server.stop() }
        let collector = Collector()
        let endpoint = MiddlewareEndpoint(
            host: server.baseURL, endpoint: "items",
            headers: ["Cookie": "c=cookie-SECRET-3"],
            query: ["access_token": "query-SECRET-5", "q": "shoes"],
            middlewares: [
                LoggingMiddleware(
                    redaction: Self.redaction, includesHeaders: true,
                    curl: true, sink: collector.sink)
            ])
        let value = try await endpoint.request(type: String.self).get()
        #expect(value == "{\"n\":1}")
        #expect(server.requests.first?.query?.contains("query-SECRET-5") == true)  // the secret did go on the wire
        #expect(collector.messages.count == 3)
        #expect(collector.messages.last?.contains(" 200 in ") == true)
        collector.expectNoSecrets()
    }

    @Test func redactionCoversHeadersURLsAndJSONAtAnyDepth() throws {
        let redaction = Redaction(headers: ["X-Secret"], queryKeys: ["Token"], bodyKeys: ["PIN"])
        #expect(redaction.redactsHeader("set-cookie"))
        #expect(redaction.redactsHeader("x-SECRET"))
        #expect(!redaction.redactsHeader("Accept"))
        let url = try #require(URL(string: "https://a:b@h.example/p?token=1&x=2&TOKEN=3#frag"))
        #expect(redaction.url(url) == "https://h.example/p?token=<redacted>&x=2&TOKEN=<redacted>#frag")
        let body = Data(#"[{"pin":"1","list":[{"Pin":2}],"keep":"k"}]"#.utf8)
        let redacted = try #require(redaction.jsonBody(body))
        let object = try JSONSerialization.jsonObject(with: redacted) as? [[String: Any]]
        #expect(object?.first?["pin"] as? String == "<redacted>")
        #expect(((object?.first?["list"] as? [[String: Any]])?.first?["Pin"]) as? String == "<redacted>")
        #expect(object?.first?["keep"] as? String == "k")
        #expect(redaction.jsonBody(Data("not json".utf8)) == nil)
    }
}

/// The words a POSIX shell makes of `command`, found by letting `/bin/sh` print them one per line.
private func shellWords(of command: String) async throws -> [String] {
    try await offThePool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "printf '%s\\n' " + command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }
}
