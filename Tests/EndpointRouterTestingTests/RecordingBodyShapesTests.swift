import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// What a recording keeps of bodies of every JSON shape, and how file uploads are keyed.
@Suite("Recording: body shapes and file uploads")
struct RecordingBodyShapesTests {
    static let valid: [(body: String, recorded: String)] = [
        (
            #"{"password":"x","ok":true,"no":false,"none":null,"n":-1.5e3}"#,
            #"{"password":"REDACTED","ok":true,"no":false,"none":null,"n":-1.5e3}"#
        ),
        (#"{"a": "say \"hi\"", "password": "p\\w\"d"}"#, #"{"a": "say \"hi\"", "password": "REDACTED"}"#),
        (#"[{"password": {"nested": [1, 2]}}, [], {}]"#, #"[{"password": "REDACTED"}, [], {}]"#),
        (#"  {"password":"x"}  "#, #"  {"password":"REDACTED"}  "#),
    ]

    /// Not JSON: written exactly as sent, never half-redacted.
    static let malformed = [
        #"{"password" "x"}"#, #"{"password":"x",}"#, #"{"password":"x" "y":1}"#, #"[1 2]"#, #"[1,]"#,
        #"{"password":tru}"#, #"{"password":"x"#, "{\"password\":\"a\u{01}b\"}", #"{"password":"x"}}"#,
        "{" + String(repeating: "[", count: 600),
    ]

    static func record(_ body: String) async throws -> String {
        try await withTemporaryDirectory { directory in
            let server = StubTransport().on(nil, "*") { _ in .json(body) }
            let recorder = RecordingTransport(wrapping: server, directory: directory, redactingJSONKeys: ["password"])
            let request = try makeRequest(
                .post, "https://api.example.com/echo", headers: ["Content-Type": "application/json"],
                body: Data(body.utf8))
            _ = try await recorder.exchange(request)
            return try String(contentsOf: directory.appendingPathComponent(recorder.fileName(for: request)), encoding: .utf8)
        }
    }

    @Test(arguments: valid)
    func validJSONIsRedactedAndOtherwiseKeptByteForByte(_ body: String, _ recorded: String) async throws {
        let text = try await Self.record(body)
        #expect(text.hasSuffix(recorded), "\(text)")
        #expect(text.components(separatedBy: recorded).count == 3, "request and response bodies both redacted")
    }

    @Test(arguments: malformed)
    func bodiesThatAreNotJSONAreKeptAsSent(_ body: String) async throws {
        let text = try await Self.record(body)
        #expect(text.hasSuffix(body))
        #expect(!text.contains("REDACTED\""), "a malformed body must not be partly redacted")
    }

    @Test func fileUploadsAreKeyedByTheirContent() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: StubTransport().on(nil, "*") { _ in .status(201) }, directory: directory)
            func upload(_ text: String, named name: String) throws -> OutgoingRequest {
                let file = directory.appendingPathComponent(name)
                try Data(text.utf8).write(to: file)
                let url = try #require(URL(string: "https://api.example.com/upload"))
                return OutgoingRequest(method: .post, url: url, body: .file(file))
            }
            let first = try upload("first content", named: "a.bin")
            let sameContent = try upload("first content", named: "b.bin")
            let other = try upload("other content", named: "c.bin")
            #expect(recorder.fileName(for: first) == recorder.fileName(for: sameContent))
            #expect(recorder.fileName(for: first) != recorder.fileName(for: other))
            _ = try await recorder.exchange(first)
            #expect(try await ReplayTransport(directory: directory).exchange(sameContent).statusCode == 201)
        }
    }
}
