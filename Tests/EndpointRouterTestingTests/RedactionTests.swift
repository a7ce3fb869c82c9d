import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import EndpointRouter
import EndpointRouterTesting

@Suite("Redaction")
struct RedactionTests {
    private static let secrets = ["s3cr3t-bearer", "s3cr3t-proxy", "s3cr3t-cookie", "s3cr3t-set-cookie",
                                  "s3cr3t-api-key", "s3cr3t-query", "s3cr3t-token", "s3cr3t-session"]

    private static func server() -> StubTransport {
        StubTransport().on(nil, "*") { request in
            .json(#"{"ok":true}"#, headers: ["Set-Cookie": "session=s3cr3t-set-cookie; HttpOnly",
                                             "X-Session": "s3cr3t-session", "X-Request-Id": "42"])
        }
    }

    private static func request(key: String = "s3cr3t-query", token: String = "s3cr3t-token") throws -> HTTPRequest {
        try makeRequest(.get, "https://api.example.com/me?api_key=\(key)&Token=\(token)&page=2", headers: [
            "Authorization": "Bearer s3cr3t-bearer",
            "proxy-authorization": "Basic s3cr3t-proxy",
            "Cookie": "id=s3cr3t-cookie",
            "X-Api-Key": "s3cr3t-api-key",
            "Accept": "application/json",
        ])
    }

    @Test func noSecretReachesAnyWrittenFile() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory,
                                              redactingHeaders: ["x-api-key", "X-SESSION"],
                                              redactingQueryKeys: ["api_key", "token"])
            let response = try await recorder.exchange(Self.request())
            #expect(response.headers["X-Session"] == "s3cr3t-session", "the caller gets the response unredacted")

            let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
            var scanned = 0
            while let file = enumerator?.nextObject() as? URL {
                let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
                for secret in Self.secrets {
                    #expect(!text.contains(secret), "\(file.lastPathComponent) contains \(secret)")
                }
                #expect(!file.lastPathComponent.contains("s3cr3t"))
                #expect(text.contains("Authorization: REDACTED"))
                #expect(text.contains("X-Api-Key: REDACTED"))
                #expect(text.contains("api_key=REDACTED&Token=REDACTED&page=2"))
                #expect(text.contains("Set-Cookie: REDACTED"))
                #expect(text.contains("X-Request-Id: 42"))
                scanned += 1
            }
            #expect(scanned == 1)
        }
    }

    @Test func replayMatchesWhateverTheRedactedValuesAre() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory,
                                              redactingQueryKeys: ["api_key", "token"])
            let recorded = try await recorder.exchange(Self.request())
            let replay = ReplayTransport(directory: directory)
            let replayed = try await replay.exchange(Self.request(key: "another-key", token: "another-token"))
            #expect(replayed.body == recorded.body)
            #expect(replayed.headers["Set-Cookie"] == "REDACTED")

            let otherPage = try makeRequest(.get, "https://api.example.com/me?api_key=k&Token=t&page=3")
            #expect(await transportError(replay, otherPage)?.urlError?.code == .fileDoesNotExist,
                    "unredacted items still have to match")
        }
    }
}
