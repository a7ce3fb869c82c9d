import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where features meet (issue 22): every built-in middleware × every kind of call × every kind of
/// credential, against a real server on 127.0.0.1 and another origin beside it, on the library's
/// default transport wrapped in a ``RecordingTransport``.
///
/// Each cell runs six calls: Alice and Bob at once, then each again (a cache or a shared exchange
/// now has something to hand out), one to a path that fails with a 500, and one to a path that
/// redirects to the other origin. It then checks that:
/// - each user got their own answer, and the credential reached its own origin (so the checks
///   below look at text that did carry it);
/// - no credential value (nor its Base64 or percent-encoded form) is in a log line, a `curl`
///   command, a recording's file or file name, a cache file or file name, a ``CallMetrics``, an
///   error's text, or any request the other origin received.
///
/// Every cell applies; where a middleware does nothing for a kind of call, the cell says so and
/// checks the same things, since a pass-through must not leak either:
/// - ``CachingMiddleware`` and ``DeduplicationMiddleware`` pass streams and `POST` uploads through;
/// - ``AuthorizationMiddleware`` does not write a `Cookie` or an endpoint-declared header (the
///   endpoint does): those cells run with the endpoint's own header and no credential store;
/// - ``RetryMiddleware`` retries a `GET` after the server's first 503 for each credential and path,
///   and does not retry the `POST` upload, whose first call fails with the 503 once.
@Suite("Where features meet: middleware × call × credential")
struct InteractionMatrixTests {
    enum Row: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case authorization, retry, logging, metrics, deduplication, cache
        var testDescription: String { rawValue }
    }

    enum CallKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case request, response, download, upload, events, lines, jsonLines, bytes, pages
        var testDescription: String { rawValue }

        /// How many user names one successful call yields (a line, an event, a page each).
        var answers: Int {
            switch self {
            case .events, .lines, .jsonLines, .pages: 2
            default: 1
            }
        }
    }

    enum CredentialKind: String, CaseIterable, Sendable {
        case bearer, basic, apiKeyHeader, apiKeyQuery, cookie, declaredHeader

        /// The credential an ``AuthorizationMiddleware`` writes, or `nil` for those the endpoint
        /// sets itself.
        func credential(user: String, secret: String) -> Credential? {
            switch self {
            case .bearer: .bearer(secret)
            case .basic: .basic(username: user, password: secret)
            case .apiKeyHeader: .header(name: "X-API-Key", value: secret)
            case .apiKeyQuery: .query(name: "api_key", value: secret)
            case .cookie, .declaredHeader: nil
            }
        }

        func headers(secret: String) -> [String: String] {
            switch self {
            case .cookie: ["Cookie": "sid=\(secret)"]
            case .declaredHeader: ["X-Session": secret]
            default: [:]
            }
        }
    }

    static let users = ["alice", "bob"]

    static func secret(_ user: String, _ kind: CredentialKind) -> String { "\(user)-\(kind.rawValue)-SECRET-7f3" }

    /// Every form a credential value can take in text: as written, and as `Basic` encodes it.
    static func forms(_ user: String, _ kind: CredentialKind) -> [String] {
        let secret = secret(user, kind)
        return [secret, Data("\(user):\(secret)".utf8).base64EncodedString()]
    }

    /// Every user's every credential form, for the leak checks.
    static let everySecretForm: [String] = users.flatMap { user in CredentialKind.allCases.flatMap { forms(user, $0) } }

    /// The user whose credential a request carries, identified from the raw request head, and the
    /// form found.
    static func identify(_ request: RecordedRequest) -> (user: String, form: String)? {
        for user in users {
            for kind in CredentialKind.allCases {
                if let form = forms(user, kind).first(where: { request.head.contains($0) }) { return (user, form) }
            }
        }
        return nil
    }

    /// What the first text containing a credential holds, or `nil` when none does.
    static func leak(in texts: [String]) -> String? {
        for text in texts where everySecretForm.contains(where: { text.contains($0) }) {
            return String(text.prefix(300))
        }
        return nil
    }

    // MARK: The servers

    struct Answer: Codable, Sendable { var user: String }

    /// The body of a successful answer to `user`, in the shape `call` reads.
    static func body(for call: CallKind, user: String, nextPage: String?) -> ScriptedResponse {
        let cacheable: [(name: String, value: String)] = [
            ("Cache-Control", "public, max-age=600"), ("Vary", "Cookie, Authorization, X-API-Key, X-Session"),
        ]
        let json = "{\"user\":\"\(user)\"}"
        switch call {
        case .request, .response, .upload: return .json(json, headers: cacheable)
        case .download, .bytes: return .status(200, headers: cacheable + [("Content-Type", "text/plain")], body: user)
        case .events:
            return .status(200, headers: [("Content-Type", "text/event-stream")], body: "data: \(user)\n\ndata: \(user)\n\n")
        case .lines: return .status(200, headers: [("Content-Type", "text/plain")], body: "\(user)\n\(user)\n")
        case .jsonLines: return .status(200, headers: [("Content-Type", "application/x-ndjson")], body: "\(json)\n\(json)\n")
        case .pages:
            let link: [(name: String, value: String)] = nextPage.map { [("Link", "<\($0)>; rel=\"next\"")] } ?? []
            return .json("[\(json)]", headers: cacheable + link)
        }
    }

    /// The endpoint's origin: answers `/answer` (and `/page2`) with the user its credential names,
    /// `/fail` with a 500, `/hop` with a 307 to the other origin. In the retry row the first request
    /// for each credential and path gets a 503 instead.
    final class Origin: Sendable {
        let server: TestServer
        let other: TestServer
        private let seen = Locked<Set<String>>([])

        init(call: CallKind, failsFirstAttempt: Bool) throws {
            other = try TestServer { _ in InteractionMatrixTests.body(for: call, user: "none", nextPage: nil) }
            let otherURL = other.baseURL + "/landing"
            let seen = self.seen
            server = try TestServer { request in
                let identified = InteractionMatrixTests.identify(request)
                // A POST is not retried, so it meets a 503 only where the cell expects the failure.
                let retried = request.method != "POST" || request.path == "/answer"
                if failsFirstAttempt, retried, let identified, request.path != "/fail",
                    seen.withLock({ $0.insert(identified.form + " " + request.path).inserted })
                {
                    return .status(503, headers: [("Retry-After", "0")], body: "busy")
                }
                switch request.path {
                case "/fail": return .json("{\"error\":\"boom\"}", status: 500)
                case "/hop": return .redirect(status: 307, location: otherURL)
                default:
                    let user = identified?.user ?? "none"
                    let next = request.path == "/answer" ? "/page2" : nil
                    return InteractionMatrixTests.body(for: call, user: user, nextPage: next)
                }
            }
        }

        deinit {
            server.stop()
            other.stop()
        }
    }

    // MARK: The endpoint

    struct MatrixEndpoint: HTTPClient, Sendable {
        var host: String
        var endpoint: String
        var method: RequestMethod = .get
        var headers: [String: String]?
        var body: EndpointBody?
        var timeout: TimeInterval? = 10
        var transport: any HTTPTransport
        var middlewares: [any HTTPMiddleware]
        var redirectPolicy: RedirectPolicy
    }

    /// An endpoint with nothing set, whose ``HTTPClient/transport`` is the library's default.
    struct LibraryDefault: HTTPClient {
        var host: String { "http://127.0.0.1" }
        var endpoint: String { "" }
    }

    /// What a cell observes: every line logged, every metric reported, the folders written.
    final class Observed: Sendable {
        let logLines = Locked<[String]>([])
        let metrics = Locked<[String]>([])
        let scratch: URL
        let recording: RecordingTransport
        let cache: ResponseCache
        let inFlight = InFlightRequests()

        init() throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            recording = RecordingTransport(wrapping: LibraryDefault().transport, directory: scratch.appendingPathComponent("recordings"))
            cache = ResponseCache(memoryBudget: 1 << 20, directory: scratch.appendingPathComponent("cache"), diskBudget: 1 << 20)
        }

        deinit { try? FileManager.default.removeItem(at: scratch) }

        var logger: LoggingMiddleware {
            let lines = logLines
            return LoggingMiddleware(
                level: .info, includesHeaders: true, includesBodies: true, curl: true,
                sink: LogSink { level, message, metadata in
                    lines.withLock { $0.append("\(level) \(message) \(metadata.sorted { $0.key < $1.key })") }
                })
        }

        /// The names and contents of every file under `folder`.
        func files(in folder: String) -> [String] {
            let root = scratch.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
            var texts: [String] = []
            for case let file as URL in walker {
                texts.append(file.lastPathComponent)
                if let data = try? Data(contentsOf: file) { texts.append(String(decoding: data, as: UTF8.self)) }
            }
            return texts
        }
    }

    static func endpoint(
        _ row: Row, _ call: CallKind, _ kind: CredentialKind, user: String, path: String, origin: Origin, observed: Observed
    ) -> MatrixEndpoint {
        let host = origin.server.baseURL
        let secret = secret(user, kind)
        var chain: [any HTTPMiddleware] = []
        if let credential = kind.credential(user: user, secret: secret) {
            chain.append(AuthorizationMiddleware(CredentialStore(credential: { credential }, refresh: { _ in .failed }), host: host))
        }
        switch row {
        case .authorization: break
        case .retry: chain.append(RetryMiddleware(sleep: { _ throws(HTTPClientError) in }))
        case .logging: chain.insert(observed.logger, at: 0)  // first: the call as the caller sees it
        case .metrics:
            let reported = observed.metrics
            chain.insert(CallMetricsMiddleware { metrics in reported.withLock { $0.append(String(reflecting: metrics)) } }, at: 0)
        case .deduplication: chain.append(DeduplicationMiddleware(sharing: observed.inFlight))
        case .cache: chain.append(CachingMiddleware(cache: observed.cache))
        }
        chain.append(observed.logger)  // closest to the transport, in every row: each attempt as sent
        return MatrixEndpoint(
            host: host, endpoint: String(path.dropFirst()), method: call == .upload ? .post : .get,
            headers: kind.headers(secret: secret), body: call == .upload ? .json(Answer(user: "note")) : nil,
            transport: observed.recording, middlewares: chain,
            redirectPolicy: RedirectPolicy(sensitiveHeaders: kind == .declaredHeader ? ["X-Session"] : []))
    }

    // MARK: The calls

    static func collect<Element>(_ stream: ResponseStream<Element>, _ name: (Element) -> String) async -> Result<[String], HTTPClientError>
    {
        var names: [String] = []
        do throws(HTTPClientError) {
            for try await element in stream { names.append(name(element)) }
            return .success(names)
        } catch {
            return .failure(error)
        }
    }

    /// Makes `call` on `endpoint`: the user names the answer held.
    static func perform(_ call: CallKind, _ endpoint: MatrixEndpoint, scratch: URL) async -> Result<[String], HTTPClientError> {
        switch call {
        case .request:
            return await endpoint.request(type: Answer.self).map { [$0.user] }
        case .response:
            return await endpoint.response(type: Answer.self).map { [$0.value.user] }
        case .upload:
            return await endpoint.response(type: Answer.self, uploadProgress: { _ in }).map { [$0.value.user] }
        case .download:
            let destination = scratch.appendingPathComponent("download-\(UUID().uuidString)")
            return await endpoint.download(to: destination).map { response in
                [(try? String(contentsOf: response.value, encoding: .utf8)) ?? "<unreadable>"]
            }
        case .events: return await collect(endpoint.events()) { $0.data }
        case .lines: return await collect(endpoint.lines()) { $0 }
        case .jsonLines: return await collect(endpoint.jsonLines(of: Answer.self)) { $0.user }
        case .bytes:
            return await collect(endpoint.bytes()) { String(decoding: $0, as: UTF8.self) }.map { [$0.joined()] }
        case .pages:
            var iterator = endpoint.pages(of: [Answer].self).makeAsyncIterator()
            var names: [String] = []
            do throws(HTTPClientError) {
                while let page = try await iterator.next() { names += page.map(\.user) }
                return .success(names)
            } catch {
                return .failure(error)
            }
        }
    }

    // MARK: The matrix

    @Test(arguments: Row.allCases, CallKind.allCases)
    func cell(_ row: Row, _ call: CallKind) async throws {
        let origin = try Origin(call: call, failsFirstAttempt: row == .retry)
        let observed = try Observed()
        for kind in CredentialKind.allCases {
            try await check(row, call, kind, origin: origin, observed: observed)
        }
        await observed.recording.waitForRecordings()
        let cell = "\(row) × \(call)"
        #expect(Self.leak(in: observed.logLines.withLock { $0 }) == nil, "a credential in a log line or curl command (\(cell))")
        #expect(Self.leak(in: observed.metrics.withLock { $0 }) == nil, "a credential in CallMetrics (\(cell))")
        #expect(Self.leak(in: observed.files(in: "recordings")) == nil, "a credential in a recording (\(cell))")
        #expect(Self.leak(in: observed.files(in: "cache")) == nil, "a credential in a cache file (\(cell))")
        let reachedOther = origin.other.requests.map { $0.head + $0.bodyText }
        #expect(!reachedOther.isEmpty, "the redirect reached the other origin (\(cell))")
        #expect(Self.leak(in: reachedOther) == nil, "a credential sent to another origin (\(cell))")
        // The observers saw the traffic, so their checks above looked at something.
        #expect(!observed.logLines.withLock { $0 }.isEmpty)
        #expect(!observed.files(in: "recordings").isEmpty)
        if row == .metrics { #expect(!observed.metrics.withLock { $0 }.isEmpty) }
        if row == .cache, call == .request || call == .response {
            #expect(!observed.files(in: "cache").isEmpty, "a GET with public, max-age=600 was stored (\(cell))")
        }
    }

    func check(_ row: Row, _ call: CallKind, _ kind: CredentialKind, origin: Origin, observed: Observed) async throws {
        let cell = "\(row) × \(call) × \(kind)"
        func endpoint(_ user: String, _ path: String) -> MatrixEndpoint {
            Self.endpoint(row, call, kind, user: user, path: path, origin: origin, observed: observed)
        }
        let scratch = observed.scratch
        let own = { (user: String) in Array(repeating: user, count: call.answers) }

        // Alice and Bob at once, then again one after the other.
        async let alice = Self.perform(call, endpoint("alice", "/answer"), scratch: scratch)
        async let bob = Self.perform(call, endpoint("bob", "/answer"), scratch: scratch)
        let first = await [alice, bob]
        for (user, result) in zip(Self.users, first) {
            if row == .retry, call == .upload {
                // A POST is not retried: the server's one 503 is the answer.
                guard case .failure(.unacceptableStatusCode(let response)) = result else {
                    Issue.record("\(cell): \(user)'s POST after a 503 should fail with it, got \(result)")
                    continue
                }
                #expect(response.statusCode == 503, "\(cell)")
            } else {
                #expect(try result.get() == own(user), "\(cell): \(user) got another answer")
            }
        }
        for user in Self.users {
            #expect(try await Self.perform(call, endpoint(user, "/answer"), scratch: scratch).get() == own(user), "\(cell): \(user), again")
        }
        if row == .retry, call == .upload {
            let posts = origin.server.requests.filter { $0.method == "POST" && $0.path == "/answer" }
            for user in Self.users {
                let form = Self.forms(user, kind)
                #expect(posts.filter { request in form.contains { request.head.contains($0) } }.count == 2, "\(cell): one POST per call")
            }
        }

        // The credential reached its own origin.
        let atOrigin = origin.server.requests.filter { $0.path == "/answer" }
        for user in Self.users {
            let form = Self.forms(user, kind)
            #expect(atOrigin.contains { request in form.contains { request.head.contains($0) } }, "\(cell): \(user)'s credential was sent")
        }

        // A failing call: its error's text holds no credential.
        switch await Self.perform(call, endpoint("alice", "/fail"), scratch: scratch) {
        case .success(let names): Issue.record("\(cell): a 500 answered \(names)")
        case .failure(let error):
            let texts = [String(describing: error), String(reflecting: error), error.localizedDescription]
            #expect(Self.leak(in: texts) == nil, "\(cell): a credential in an error's text")
        }

        // A redirect to another origin: answered there, without the credential (checked by the caller).
        let landed = await Self.perform(call, endpoint("alice", "/hop"), scratch: scratch)
        #expect(
            try landed.get() == Array(repeating: "none", count: call == .pages ? 1 : call.answers), "\(cell): the other origin's answer")
    }
}
