import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Redaction")
struct RedactionTests {
    private static let secrets = [
        "s3cr3t-bearer", "s3cr3t-proxy", "s3cr3t-cookie", "s3cr3t-set-cookie",
        "s3cr3t-api-key", "s3cr3t-query", "s3cr3t-token", "s3cr3t-session",
    ]

    private static func server() -> StubTransport {
        StubTransport().on(nil, "*") { request in
            .json(
                #"{"ok":true}"#,
                headers: [
                    "Set-Cookie": "session=s3cr3t-set-cookie; HttpOnly",
                    "X-Session": "s3cr3t-session", "X-Request-Id": "42",
                ])
        }
    }

    private static func request(key: String = "s3cr3t-query", token: String = "s3cr3t-token") throws -> OutgoingRequest {
        try makeRequest(
            .get, "https://api.example.com/me?api_key=\(key)&Token=\(token)&page=2",
            headers: [
                "Authorization": "Bearer s3cr3t-bearer",
                "proxy-authorization": "Basic s3cr3t-proxy",
                "Cookie": "id=s3cr3t-cookie",
                "X-Api-Key": "s3cr3t-api-key",
                "Accept": "application/json",
            ])
    }

    @Test func noSecretReachesAnyWrittenFile() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(
                wrapping: Self.server(), directory: directory,
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

    /// Nothing listed: the library's rule alone keeps credential-looking headers and query values
    /// off the disk, and replay still finds the file whatever their values are next time.
    @Test func theDefaultsKeepCredentialLookingValuesOffTheDisk() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory)
            _ = try await recorder.exchange(Self.request())
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.count == 1)
            let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(try #require(files.first))), as: UTF8.self)
            for secret in Self.secrets {
                #expect(!text.contains(secret), "the recording contains \(secret)")
            }
            #expect(text.contains("X-Api-Key: REDACTED"))
            #expect(text.contains("X-Session: REDACTED"))
            #expect(text.contains("api_key=REDACTED&Token=REDACTED&page=2"))
            #expect(text.contains("X-Request-Id: 42"))
            #expect(text.contains("Accept: application/json"))

            let replayed = try await ReplayTransport(directory: directory).exchange(Self.request(key: "k2", token: "t2"))
            #expect(replayed.statusCode == 200)
        }
    }

    /// A name revealed when recording is written in clear, and replay keys on its value as it was.
    @Test func aRevealedNameIsRecordedInClearAndReplayedByValue() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.server(), directory: directory, revealing: ["Token", "X-Api-Key"])
            _ = try await recorder.exchange(Self.request(token: "visible-token"))
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(try #require(files.first))), as: UTF8.self)
            #expect(text.contains("api_key=REDACTED&Token=visible-token&page=2"))
            #expect(text.contains("X-Api-Key: s3cr3t-api-key"))
            #expect(text.contains("Authorization: REDACTED"), "a credential header is never revealed")

            let replay = ReplayTransport(directory: directory)
            #expect(try await replay.exchange(Self.request(key: "another", token: "visible-token")).statusCode == 200)
            #expect(
                await transportError(replay, try Self.request(token: "other-token"))?.urlError?.code == .fileDoesNotExist,
                "a revealed item has to match")
        }
    }

    @Test func replayMatchesWhateverTheRedactedValuesAre() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(
                wrapping: Self.server(), directory: directory,
                redactingQueryKeys: ["api_key", "token"])
            let recorded = try await recorder.exchange(Self.request())
            let replay = ReplayTransport(directory: directory)
            let replayed = try await replay.exchange(Self.request(key: "another-key", token: "another-token"))
            #expect(replayed.body == recorded.body)
            #expect(replayed.headers["Set-Cookie"] == "REDACTED")

            let otherPage = try makeRequest(.get, "https://api.example.com/me?api_key=k&Token=t&page=3")
            #expect(
                await transportError(replay, otherPage)?.urlError?.code == .fileDoesNotExist,
                "unredacted items still have to match")
        }
    }

    /// A login as apps do it: the password goes out in a JSON body, tokens come back in one, one of
    /// them nested in an array.
    private static let loginAnswer = """
        {"access_token": "s3cr3t-access", "expires_in": 3600.0, "scopes": ["read", "write"],
         "sessions": [{"device": "phone", "Refresh_Token": {"value": "s3cr3t-refresh", "ttl": 9}}],
         "note": "access_token stays readable as text"}
        """

    private static func loginServer() -> StubTransport {
        StubTransport().on(.post, "/login") { _ in
            .json(loginAnswer, headers: ["Content-Length": String(Data(loginAnswer.utf8).count)])
        }
    }

    private static func login(user: String = "ann", password: String) throws -> OutgoingRequest {
        try makeRequest(
            .post, "https://api.example.com/login", headers: ["Content-Type": "application/json"],
            body: Data(#"{"user":"\#(user)","credentials":[{"password":"\#(password)"}]}"#.utf8))
    }

    @Test func jsonMembersAreRedactedInRequestAndResponseBodies() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(
                wrapping: Self.loginServer(), directory: directory,
                redactingJSONKeys: ["password", "access_token", "refresh_token"])
            let live = try await recorder.exchange(Self.login(password: "s3cr3t-password"))
            #expect(String(decoding: live.body, as: UTF8.self).contains("s3cr3t-access"), "the caller gets the answer unredacted")

            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.count == 1)
            let file = directory.appendingPathComponent(try #require(files.first))
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            for secret in ["s3cr3t-password", "s3cr3t-access", "s3cr3t-refresh"] {
                #expect(!text.contains(secret), "the recording contains \(secret)")
            }
            #expect(text.contains(#"{"user":"ann","credentials":[{"password":"REDACTED"}]}"#))
            let redactedAnswer = """
                {"access_token": "REDACTED", "expires_in": 3600.0, "scopes": ["read", "write"],
                 "sessions": [{"device": "phone", "Refresh_Token": "REDACTED"}],
                 "note": "access_token stays readable as text"}
                """
            #expect(text.hasSuffix(redactedAnswer), "everything but the redacted values is kept byte for byte")
            #expect(text.contains("Content-Length: \(Data(redactedAnswer.utf8).count)\n"))

            let replayed = try await ReplayTransport(directory: directory).exchange(Self.login(password: "another-password"))
            #expect(replayed.body == Data(redactedAnswer.utf8), "the key is computed after redaction")
            #expect(replayed.headers["Content-Length"] == String(replayed.body.count))
            let otherUser = try Self.login(user: "bob", password: "s3cr3t-password")
            #expect(
                await transportError(ReplayTransport(directory: directory), otherUser)?.urlError?.code == .fileDoesNotExist,
                "members that are not redacted still have to match")
        }
    }

    @Test func bodiesThatAreNotJSONAreWrittenAsTheyAre() async throws {
        try await withTemporaryDirectory { directory in
            let server = StubTransport().on(nil, "*") { _ in .text(#"password: "kept", {"password": unparsed"#) }
            let recorder = RecordingTransport(wrapping: server, directory: directory, redactingJSONKeys: ["password"])
            let request = try makeRequest(.post, "https://api.example.com/echo", body: Data("password=plain".utf8))
            _ = try await recorder.exchange(request)
            let text = try String(contentsOf: directory.appendingPathComponent(recorder.fileName(for: request)), encoding: .utf8)
            #expect(text.contains("password=plain"))
            #expect(text.hasSuffix(#"password: "kept", {"password": unparsed"#))
            #expect(try await ReplayTransport(directory: directory).exchange(request).statusCode == 200)
        }
    }
}
