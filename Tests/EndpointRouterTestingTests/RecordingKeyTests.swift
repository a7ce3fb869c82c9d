import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which requests share a recording and which do not: a wrong key either serves one request the
/// answer recorded for another, or never finds the recording at all.
@Suite("Recording keys")
struct RecordingKeyTests {
    /// A server that answers with the query it was asked, so a crossed recording shows in the body.
    private static func echoingServer() -> StubTransport {
        StubTransport().on(nil, "*") { request in
            .json(#"{"query":"\#(request.url.query ?? "")"}"#)
        }
    }

    /// Repeated items are read in order by servers (`sort=name&sort=-date` sorts by name first), so
    /// the two orders must be two recordings, each replaying its own answer.
    @Test func repeatedQueryItemsInAnotherOrderAreAnotherRecording() async throws {
        try await withTemporaryDirectory { directory in
            let byNameFirst = try makeRequest(.get, "https://api.example.com/items?sort=name&sort=-date")
            let byDateFirst = try makeRequest(.get, "https://api.example.com/items?sort=-date&sort=name")
            let recorder = RecordingTransport(wrapping: Self.echoingServer(), directory: directory)
            #expect(recorder.fileName(for: byNameFirst) != recorder.fileName(for: byDateFirst))

            _ = try await recorder.exchange(byNameFirst)
            _ = try await recorder.exchange(byDateFirst)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2)

            let replay = ReplayTransport(directory: directory)
            #expect(try await replay.exchange(byNameFirst).body == Data(#"{"query":"sort=name&sort=-date"}"#.utf8))
            #expect(try await replay.exchange(byDateFirst).body == Data(#"{"query":"sort=-date&sort=name"}"#.utf8))
        }
    }

    /// Items with different names still count in any order, and repeated items interleaved with
    /// others keep their relative order.
    @Test func onlyTheOrderWithinOneNameCounts() throws {
        let recorder = RecordingTransport(wrapping: StubTransport(), directory: FileManager.default.temporaryDirectory)
        func name(_ query: String) throws -> String {
            recorder.fileName(for: try makeRequest(.get, "https://api.example.com/items?\(query)"))
        }
        #expect(try name("a=1&sort=x&b=2&sort=y") == name("sort=x&b=2&sort=y&a=1"))
        #expect(try name("a=1&sort=x&b=2&sort=y") != name("a=1&sort=y&b=2&sort=x"))
        #expect(try name("tag=1&tag=1&tag=2") != name("tag=1&tag=2&tag=2"))
    }

    /// A form as an app builds it: `MultipartFormData()` with its random boundary, new on every run.
    private enum UploadAPI: HTTPClient {
        case photo(title: String, bytes: Data)

        var host: String { "https://uploads.example.com" }
        var endpoint: String { "photos" }
        var method: RequestMethod { .post }
        var body: EndpointBody? {
            guard case .photo(let title, let bytes) = self else { return nil }
            var form = MultipartFormData()
            form.append(title, name: "title")
            form.append(bytes, name: "photo", fileName: "beach.jpg", mimeType: "image/jpeg")
            return .multipart(form)
        }
    }

    private struct Stored: Decodable, Equatable {
        let id: Int
    }

    /// Recorded with one random boundary, replayed with another: the same form finds its recording,
    /// and a form with other parts does not.
    @Test func multipartReplaysWhateverItsBoundary() async throws {
        try await withTemporaryDirectory { directory in
            let counter = Locked(0)
            let boundaries = Locked<[String]>([])
            let server = StubTransport().on(.post, "/photos") { request in
                let contentType = request.headers["Content-Type"] ?? ""
                boundaries.withLock { $0.append(contentType) }
                let id = counter.withLock { count -> Int in
                    count += 1
                    return count
                }
                return .json(#"{"id":\#(id)}"#)
            }
            let photo = Data([0xFF, 0xD8, 0xFF, 0x00, 0x0D, 0x0A])
            let recorded = try await withTransport(RecordingTransport(wrapping: server, directory: directory)) {
                try await UploadAPI.photo(title: "Holiday", bytes: photo).request(type: Stored.self).get()
            }
            #expect(recorded == Stored(id: 1))

            let replay = ReplayTransport(directory: directory)
            let replayed = try await withTransport(replay) {
                try await UploadAPI.photo(title: "Holiday", bytes: photo).request(type: Stored.self).get()
            }
            #expect(replayed == recorded)
            let recordedType = try #require(boundaries.withLock { $0 }.first)
            let replayedType = try #require(replay.capturedRequests.first?.headers["Content-Type"])
            #expect(recordedType.hasPrefix("multipart/form-data; boundary="))
            #expect(recordedType != replayedType, "the two runs used two different boundaries")

            let otherTitle = await withTransport(replay) {
                await UploadAPI.photo(title: "Work", bytes: photo).request(type: Stored.self)
            }
            #expect(otherTitle.failure?.urlError?.code == .fileDoesNotExist)
            let otherBytes = await withTransport(replay) {
                await UploadAPI.photo(title: "Holiday", bytes: photo + Data([1])).request(type: Stored.self)
            }
            #expect(otherBytes.failure?.urlError?.code == .fileDoesNotExist)
        }
    }

    /// A body that only claims to be multipart is keyed by its bytes, as before.
    @Test func bodyNotFramedByItsBoundaryIsKeyedByItsBytes() throws {
        let recorder = RecordingTransport(wrapping: StubTransport(), directory: FileManager.default.temporaryDirectory)
        let headers: HeaderFields = ["Content-Type": "multipart/form-data; boundary=abc"]
        let first = try makeRequest(.post, "https://api.example.com/up", headers: headers, body: Data("not a form".utf8))
        let second = try makeRequest(.post, "https://api.example.com/up", headers: headers, body: Data("not a form!".utf8))
        #expect(recorder.fileName(for: first) != recorder.fileName(for: second))
    }

    /// A server that answers with the names of the credential headers it saw (never their values,
    /// which the recording of the body would keep), so a crossed recording shows.
    private static func credentialEchoingServer() -> StubTransport {
        StubTransport().on(nil, "*") { request in
            let names = ["Authorization", "Cookie", "X-API-Key", "X-Secret"].filter { request.headers[$0] != nil }
            return .text(names.isEmpty ? "anonymous" : names.joined(separator: ","))
        }
    }

    /// Credentials count by presence: a request without any never replays what a signed-in one
    /// recorded, while a rotated token (or another user's) finds the signed-in recording.
    @Test func aRequestWithoutCredentialsNeverReplaysASignedInRecording() async throws {
        try await withTemporaryDirectory { directory in
            let anonymous = try makeRequest(.get, "https://api.example.com/me")
            let alice = try makeRequest(.get, "https://api.example.com/me", headers: ["Authorization": "Bearer alice"])
            let bob = try makeRequest(.get, "https://api.example.com/me", headers: ["Authorization": "Bearer bob"])
            let cookie = try makeRequest(.get, "https://api.example.com/me", headers: ["Cookie": "sid=alice"])
            let recorder = RecordingTransport(wrapping: Self.credentialEchoingServer(), directory: directory)
            #expect(recorder.fileName(for: anonymous) != recorder.fileName(for: alice))
            #expect(recorder.fileName(for: alice) == recorder.fileName(for: bob), "a value never changes the name")
            #expect(recorder.fileName(for: alice) == recorder.fileName(for: cookie))

            _ = try await recorder.exchange(anonymous)
            _ = try await recorder.exchange(alice)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2)

            let replay = ReplayTransport(directory: directory)
            #expect(try await replay.exchange(anonymous).body == Data("anonymous".utf8))
            #expect(try await replay.exchange(bob).body == Data("Authorization".utf8), "Alice's recording, for any token")
        }
    }

    /// The API key an AuthorizationMiddleware adds is a secret even when the test does not list its
    /// header: it is redacted, and it counts as a credential for the file name.
    @Test func anAPIKeyAddedByAMiddlewareIsRedactedAndCountsAsACredential() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.credentialEchoingServer(), directory: directory)
            #expect(try await withTransport(recorder) { try await KeyedAPI(key: nil).request(type: String.self).get() } == "anonymous")
            #expect(
                try await withTransport(recorder) { try await KeyedAPI(key: "alice-key").request(type: String.self).get() } == "X-API-Key")
            let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            #expect(files.count == 2)
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                #expect(!text.contains("alice-key"), "\(file.lastPathComponent)")
            }

            let replay = ReplayTransport(directory: directory)
            #expect(try await withTransport(replay) { try await KeyedAPI(key: nil).request(type: String.self).get() } == "anonymous")
            #expect(try await withTransport(replay) { try await KeyedAPI(key: "bob-key").request(type: String.self).get() } == "X-API-Key")
        }
    }

    /// The same for an API key the middleware puts in the query (`Credential.query`): the recording
    /// names the item with its value redacted, and a call with another key replays it.
    @Test func anAPIKeyInTheQueryAddedByAMiddlewareIsRedactedAndReplaysForAnyKey() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(wrapping: Self.credentialEchoingServer(), directory: directory)
            let alice = KeyedAPI(key: "alice-query-key", inQuery: true)
            #expect(try await withTransport(recorder) { try await alice.request(type: String.self).get() } == "anonymous")
            let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            #expect(files.count == 1)
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                #expect(!text.contains("alice-query-key"), "\(file.lastPathComponent)")
                #expect(!file.lastPathComponent.contains("alice-query-key"))
                #expect(text.contains("api_key=REDACTED"), "\(text.prefix(300))")
            }

            let replay = ReplayTransport(directory: directory)
            let bob = KeyedAPI(key: "bob-query-key", inQuery: true)
            #expect(try await withTransport(replay) { try await bob.request(type: String.self).get() } == "anonymous")
            // Without a key the call is another request, with no recording.
            #expect(await withTransport(replay) { await KeyedAPI(key: nil).request(type: String.self) }.failure != nil)
        }
    }

    /// A header only the recorder was told to redact is known to replay from the file alone: the
    /// request with it finds its recording, the request without it does not.
    @Test func aHeaderRedactedOnlyByTheRecorderStillSeparatesTheRecordings() async throws {
        try await withTemporaryDirectory { directory in
            let recorder = RecordingTransport(
                wrapping: Self.credentialEchoingServer(), directory: directory, redactingHeaders: ["X-Secret"])
            let signedIn = try makeRequest(.get, "https://api.example.com/me", headers: ["X-Secret": "alice"])
            _ = try await recorder.exchange(signedIn)

            let replay = ReplayTransport(directory: directory)
            let rotated = try makeRequest(.get, "https://api.example.com/me", headers: ["X-Secret": "rotated"])
            #expect(try await replay.exchange(rotated).body == Data("X-Secret".utf8))
            let anonymous = try makeRequest(.get, "https://api.example.com/me")
            await #expect(throws: HTTPClientError.self) { _ = try await replay.exchange(anonymous) }
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

/// One endpoint whose calls carry an API key from an `AuthorizationMiddleware`, or none.
private struct KeyedAPI: HTTPClient {
    static let host = "https://api.example.com"
    let key: String?
    var inQuery = false
    var host: String { Self.host }
    var endpoint: String { "me" }
    var middlewares: [any HTTPMiddleware] {
        guard let key else { return [] }
        let credential: Credential = inQuery ? .query(name: "api_key", value: key) : .header(name: "X-API-Key", value: key)
        let store = CredentialStore(credential: { credential }, refresh: { _ in .failed })
        return [AuthorizationMiddleware(store, host: Self.host)]
    }
}
