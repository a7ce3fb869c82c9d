import Foundation
import Testing

@testable import EndpointRouter

/// A credential an ``AuthorizationMiddleware`` puts under a name of its own — an API key header or
/// query item — is a secret everywhere the library writes a request down: the log lines and cURL
/// command of a `LoggingMiddleware` placed after it (the recommended order), and the keys, file
/// names and files of the HTTP cache. The cache still keeps users apart by it.
@Suite("Credentials under a name of their own: never written down")
struct NamedCredentialTests {
    static let host = "https://api.example.com"
    static let secret = "sk-live-4f2a9c7e"

    static func authorization(_ credential: Credential) -> AuthorizationMiddleware {
        AuthorizationMiddleware(CredentialStore(credential: { credential }, refresh: { _ in .failed }), host: host)
    }

    /// Answers 200 with the credential it saw reversed (or "none"), cacheable for a minute: the body
    /// tells users apart without holding the secret itself, which the cache would rightly store.
    final class KeyEcho: Sendable {
        private let received = Locked<[OutgoingRequest]>([])
        var requests: [OutgoingRequest] { received.withLock { $0 } }

        var transport: ClosureTransport {
            ClosureTransport { [self] request in
                received.withLock { $0.append(request) }
                let key = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "api_key" }?.value
                let answer = (key ?? request.headers["X-API-Key"]).map { String($0.reversed()) } ?? "none"
                return IncomingResponse(
                    statusCode: 200, headers: ["Cache-Control": "max-age=60", "Content-Type": "text/plain"],
                    body: Data(answer.utf8), url: request.url)
            }
        }
    }

    @Test(arguments: [Credential.header(name: "X-API-Key", value: secret), .query(name: "api_key", value: secret)])
    func aLoggingMiddlewareAfterTheAuthorizationRedactsIt(_ credential: Credential) async throws {
        let lines = Locked<[String]>([])
        let endpoint = MiddlewareEndpoint(
            host: Self.host, endpoint: "me", query: ["page": "2"], transport: KeyEcho().transport,
            middlewares: [
                Self.authorization(credential),
                LoggingMiddleware(
                    includesHeaders: true, curl: true,
                    sink: LogSink { _, message, metadata in
                        lines.withLock { $0.append(message + " " + metadata.values.sorted().joined(separator: " ")) }
                    }),
            ])
        #expect(await endpoint.request(type: String.self) == .success(String(Self.secret.reversed())))

        let written = lines.withLock { $0 }
        #expect(written.count == 3, "request line, cURL command, response line: \(written)")
        for line in written { #expect(!line.contains(Self.secret), "leaked: \(line)") }
        switch credential {
        case .query: #expect(written.allSatisfy { $0.contains("api_key=<redacted>") && $0.contains("page=2") })
        default: #expect(written.first?.contains("X-API-Key: <redacted>") == true)
        }
    }

    @Test func aLoggingMiddlewareRedactsTheHeadersTheEndpointDeclaredSensitive() async throws {
        let lines = Locked<[String]>([])
        var endpoint = MiddlewareEndpoint(
            host: Self.host, endpoint: "me", headers: ["X-Session": Self.secret, "X-Trace": "visible"], transport: KeyEcho().transport,
            middlewares: [
                LoggingMiddleware(
                    includesHeaders: true, curl: true, sink: LogSink { _, message, _ in lines.withLock { $0.append(message) } })
            ])
        endpoint.redirectPolicy = RedirectPolicy(sensitiveHeaders: ["x-session"])
        _ = await endpoint.request(type: String.self)
        let written = lines.withLock { $0 }
        #expect(written.count == 3)
        for line in written { #expect(!line.contains(Self.secret), "leaked: \(line)") }
        #expect(written.first?.contains("X-Session: <redacted>") == true)
        #expect(written.first?.contains("X-Trace: visible") == true)
    }

    @Test func aQueryKeyIsNeitherInACacheKeyNorInAFileAndStillKeepsUsersApart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("er-named-credential-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ResponseCache(memoryBudget: 1 << 20, directory: directory, diskBudget: 1 << 20)
        let echo = KeyEcho()
        func user(_ key: String) -> MiddlewareEndpoint {
            MiddlewareEndpoint(
                host: Self.host, endpoint: "me", transport: echo.transport,
                middlewares: [Self.authorization(.query(name: "api_key", value: key)), CachingMiddleware(cache: cache)])
        }
        let alice = Self.secret
        let bob = "sk-live-bob-0b0b0b"

        #expect(await user(alice).request(type: String.self) == .success(String(alice.reversed())))
        #expect(await user(bob).request(type: String.self) == .success(String(bob.reversed())))
        #expect(echo.requests.count == 2, "bob was answered with alice's entry")
        // Each is answered from its own entry, with the URL the caller asked for minus the key.
        let again = await user(alice).response(type: String.self)
        #expect(try again.get().value == String(alice.reversed()))
        #expect(echo.requests.count == 2)
        #expect(try again.get().url?.query == nil)

        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count >= 2)
        for file in files {
            let bytes = try Data(contentsOf: file)
            #expect(!file.lastPathComponent.contains("sk-live"))
            #expect(bytes.range(of: Data(alice.utf8)) == nil, "alice's key is in \(file.lastPathComponent)")
            #expect(bytes.range(of: Data("sk-live-bob".utf8)) == nil, "bob's key is in \(file.lastPathComponent)")
        }
        // The key without its credential: what the cache answers an anonymous request with is its own.
        let anonymous = MiddlewareEndpoint(
            host: Self.host, endpoint: "me", transport: echo.transport, middlewares: [CachingMiddleware(cache: cache)])
        #expect(await anonymous.request(type: String.self) == .success("none"))
        #expect(echo.requests.count == 3)
    }

    @Test func splittingAQueryKeepsEveryOtherItemAsItWasEncoded() throws {
        let url = try #require(URL(string: "https://api.example.com/x?q=a%20b&api_key=s%26k&api_key=again&API_KEY=other&empty&=v"))
        let (stripped, taken) = CredentialPartition.splitCredentials(of: url, queryItems: ["api_key"])
        #expect(stripped.absoluteString == "https://api.example.com/x?q=a%20b&API_KEY=other&empty&=v")
        #expect(taken.map(\.value) == ["s&k", "again"])
        let (only, _) = CredentialPartition.splitCredentials(
            of: try #require(URL(string: "https://h.example/x?api_key=1")), queryItems: ["api_key"])
        #expect(only.absoluteString == "https://h.example/x")
        #expect(CredentialPartition.splitCredentials(of: url, queryItems: []).url == url)
        // A percent-encoded name is the same name once decoded, as the server reads it.
        let encoded = try #require(URL(string: "https://h.example/x?api%5Fkey=s&a.b/c=1"))
        let (plain, found) = CredentialPartition.splitCredentials(of: encoded, queryItems: ["api_key"])
        #expect(plain.absoluteString == "https://h.example/x?a.b/c=1")
        #expect(found.map(\.value) == ["s"])
    }
}
