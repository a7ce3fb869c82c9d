import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything at once on one live transport, 64 calls in flight for `CHAOS_SECONDS` (60 in CI's
/// step of its own; without it, 16 in flight for 3 s): GETs, POSTs, redirect chains of every status cut by cancels and
/// deadlines, endless bodies cut by their deadline or size limit, uploads from a file, downloads to
/// a file, 401s answered by a credential refresh, 503s answered by a retry, and three users sharing
/// one cache and one set of requests in flight. Every call must end exactly once, with an outcome
/// its kind allows, carrying its own answer (never another call's or another user's), and resident
/// memory must stay bounded.
///
/// The AsyncHTTPClient companion package links this file too: each package runs it on the first
/// live transport it lists (`TransportUnderTest+All.swift`).
@Suite("Chaos: every path of a call at once", .serialized)  // it measures memory
struct ChaosTests {
    static let transports = Array(
        TransportUnderTest.all.filter {
            if case .live = $0.engine { !$0.name.hasPrefix("Recording") } else { false }
        }.prefix(1))

    @Test(arguments: transports) func everyCallEndsOnceWithItsOwnAnswer(_ kind: TransportUnderTest) async throws {
        guard case .live(let make) = kind.engine else { return }
        let seconds = Double(ProcessInfo.processInfo.environment["CHAOS_SECONDS"] ?? "") ?? 3
        // Full size (CHAOS_SECONDS set, alone in CI) keeps 64 in flight; a plain `swift test` keeps 16,
        // because the suites measuring time run beside it there, under sanitizers too.
        let inFlight = ProcessInfo.processInfo.environment["CHAOS_SECONDS"] == nil ? 16 : 64
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("er-chaos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let upload = scratch.appendingPathComponent("upload.bin")
        try Data((0..<ChaosServer.uploadSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: upload)

        let server = try ChaosServer()
        defer { server.stop() }
        // URLSession on Linux keeps reading an abandoned fast body at full speed until its cancel gets
        // through corelibs' process-wide work queue, which those very bodies hold: a few of them in
        // flight stall every other call past its deadline and queue their data without bound
        // (8 abandoned at once: +1.7 GiB resident within 7 s, still growing 50 MiB/s; see
        // SharedWorkQueueTests and the Linux article). That gap is measured there; here URLSession's
        // endless bodies drip (4 KiB every 5 ms), still cut only by their deadline.
        #if canImport(FoundationNetworking)
            let fastEndlessBodies = kind.name != TransportUnderTest.urlSession.name
        #else
            let fastEndlessBodies = true
        #endif
        let world = ChaosWorld(
            host: server.baseURL, transport: make(scratch), upload: upload, scratch: scratch, server: server,
            fastEndlessBodies: fastEndlessBodies)
        let report = ChaosReport()

        await MemorySampler.settle()
        let sampler = MemorySampler()
        sampler.start()
        let started = ContinuousClock.now
        let stopAt = started + .milliseconds(Int(seconds * 1000))
        // On a slow or busy machine a short run makes a few dozen calls, and a kind may be drawn once
        // and cut by its cancel: past `stopAt` the workers draw only the kinds that have not succeeded
        // yet, for at most `grace`, so the liveness check below fails only on a kind that cannot succeed.
        let grace = stopAt + .seconds(20)
        let nextID = Locked(0)
        let finishedWorkers = Locked(0)
        for worker in 0..<inFlight {
            Task.detached {
                var generator = ChaosGenerator(state: UInt64(worker) &* 0x9E37_79B9 &+ UInt64(Date().timeIntervalSince1970))
                while true {
                    let now = ContinuousClock.now
                    let candidates = now < stopAt ? ChaosKind.allCases : (now < grace ? report.kindsWithoutSuccess() : [])
                    guard let kind = candidates.randomElement(using: &generator) else { break }
                    let id = nextID.withLock { value -> Int in
                        value += 1
                        return value
                    }
                    await world.run(kind, id: id, using: &generator, into: report)
                }
                finishedWorkers.withLock { $0 += 1 }
            }
        }
        // Bounded: a call that never ends fails the test here instead of hanging the suite.
        let limit = grace + .seconds(60)
        while finishedWorkers.withLock({ $0 }) < inFlight, ContinuousClock.now < limit {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        try await Task.sleep(nanoseconds: 200_000_000)  // lets a late second answer be counted
        let memory = sampler.stop()
        let summary = report.summary()
        let growth = (memory.peakBytes - memory.baselineBytes) / (1024 * 1024)
        print(
            "chaos on \(kind.name): \(summary.calls) calls in \(ContinuousClock.now - started), \(inFlight) in flight; "
                + "outcomes \(summary.outcomes.sorted { $0.key < $1.key }); peak resident growth \(growth) MiB")

        #expect(finishedWorkers.withLock { $0 } == inFlight, "calls that never ended: \(report.openCalls().prefix(20))")
        #expect(summary.deliveredTwice.isEmpty, "answered more than once: \(summary.deliveredTwice.prefix(20))")
        // A plain `swift test` runs other suites' abandoned fast bodies beside this one; on URLSession
        // on Linux they stall every session of the process (corelibs' shared work queue), so a call
        // may reach its 20 s deadline there. Only that, only then, is a known issue; run alone
        // (CHAOS_SECONDS set, as CI does) every wrong outcome fails.
        #if canImport(FoundationNetworking)
            let sharesTheProcess = ProcessInfo.processInfo.environment["CHAOS_SECONDS"] == nil && !fastEndlessBodies
        #else
            let sharesTheProcess = false
        #endif
        let stalled = summary.problems.filter { sharesTheProcess && $0.hasSuffix(": timedOut, its own answer: true") }
        let problems = summary.problems.filter { !stalled.contains($0) }
        #expect(problems.isEmpty, "\(problems.count) wrong outcomes, first: \(problems.prefix(10))")
        if !stalled.isEmpty {
            withKnownIssue("corelibs' shared work queue, held by other suites' abandoned bodies", isIntermittent: true) {
                Issue.record("\(stalled.count) calls reached their deadline: \(stalled.prefix(5))")
            }
        }
        #expect(summary.crossedUsers == 0, "\(summary.crossedUsers) answers went to another user")
        // Every kind ran and most ended well: a chaos run that only produced errors proves little.
        for kind in ChaosKind.allCases {
            #expect(summary.successes[kind, default: 0] > 0 || kind == .endless, "no \(kind) call succeeded")
        }
        // Bounded only when run alone at a chosen size (CI's chaos step): resident memory is the
        // process's, and in a plain `swift test` other suites' abandoned endless bodies on URLSession
        // grow it by gigabytes (corelibs, see SharedWorkQueueTests). A sanitizer's shadow memory
        // grows it whatever the library does.
        let environment = ProcessInfo.processInfo.environment
        if environment["CHAOS_SECONDS"] != nil, environment["ENDPOINTROUTER_SANITIZER"] == nil {
            // CurlTransport pauses a transfer whose sink is full and closes a cut one at once, so its
            // fast endless bodies hold little. Issue 23's target is 64 MiB; measured 38 MiB in a 30 s
            // run and 55 MiB in CI's 60 s run, so the bound leaves room for the spread between runs.
            let bound = kind.name == TransportUnderTest.curl.name ? 96 : 256
            #expect(growth <= bound, "resident memory grew \(growth) MiB (bound \(bound) MiB)")
        }
    }
}

/// The kinds of call the chaos test mixes.
enum ChaosKind: String, CaseIterable, Sendable {
    case get, post, redirectChain, endless, upload, download, refreshedCredential, retried503, sharedCache
}

/// What the chaos server answers JSON calls with; each field is set by the routes that know it.
struct ChaosAnswer: Decodable, Sendable {
    var id: Int?
    var user: String?
    var length: Int64?
    var echo: Int?
}

/// The loopback server of the chaos test: one route per kind, keyed by the call's id in the path so
/// every answer names the call it belongs to.
final class ChaosServer: Sendable {
    static let uploadSize = 192 * 1024
    static let downloadSize: Int64 = 256 * 1024
    /// Every 2 s the server accepts a new token only: waves of 401s, each answered by one refresh.
    static let tokenLifetime = 2.0

    private let server: TestServer
    private let flakyAttempts = Locked<[Int: Int]>([:])
    let started = Date()

    init() throws {
        let attempts = flakyAttempts
        let started = started
        server = try TestServer(bodyStorageLimit: 4 * 1024 * 1024, keepsRequests: false) { request in
            ChaosServer.answer(request, attempts: attempts, started: started)
        }
    }

    var baseURL: String { server.baseURL }
    func stop() { server.stop() }

    /// How many times the server saw `/flaky/<id>`.
    func attempts(of id: Int) -> Int { flakyAttempts.withLock { $0[id, default: 0] } }

    /// The token the server accepts now.
    func currentToken() -> String { Self.token(at: Date(), started: started) }

    static func token(at date: Date, started: Date) -> String {
        "t\(Int(date.timeIntervalSince(started) / tokenLifetime))"
    }

    static let users = ["key-alice": "alice", "key-bob": "bob"]

    static func answer(_ request: RecordedRequest, attempts: Locked<[Int: Int]>, started: Date) -> ScriptedResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let id = parts.last.flatMap { Int($0) } ?? -1
        switch parts.first ?? "" {
        case "get":
            return .json(#"{"id":\#(id)}"#)
        case "post":
            let echo = (try? JSONDecoder().decode([String: Int].self, from: request.body))?["n"] ?? -1
            return .json(#"{"id":\#(id),"echo":\#(echo)}"#, status: 201)
        case "chain" where parts.count == 4:
            let hops = Int(parts[1]) ?? 0
            guard hops > 0 else { return .json(#"{"id":\#(id)}"#) }
            return .redirect(status: Int(parts[2]) ?? 302, location: "/chain/\(hops - 1)/\(parts[2])/\(id)")
        case "endless":
            return .stream()
        case "drip":
            return .stream(chunk: 4096, interval: 0.005)
        case "upload":
            return .json(#"{"id":\#(id),"length":\#(request.bodyLength)}"#)
        case "download":
            return .stream(total: downloadSize, announceLength: id % 2 == 0)
        case "auth":
            guard request.header("Authorization") == "Bearer \(token(at: Date(), started: started))" else {
                return .status(401, headers: [("WWW-Authenticate", "Bearer")], body: "expired")
            }
            return .json(#"{"id":\#(id)}"#)
        case "flaky":
            let attempt = attempts.withLock { counts -> Int in
                counts[id, default: 0] += 1
                return counts[id, default: 0]
            }
            guard attempt > 1 else { return .status(503, headers: [("Retry-After", "0")], body: "busy") }
            return .json(#"{"id":\#(id)}"#)
        case "profile", "profile-etag":
            // The user comes from the API key or the session cookie; the path is the same for all.
            let user =
                request.header("X-API-Key").flatMap { users[$0] }
                ?? request.header("Cookie").flatMap { $0.hasPrefix("session=") ? String($0.dropFirst(8)) : nil }
                ?? "nobody"
            if parts[0] == "profile" {
                return .json(#"{"user":"\#(user)"}"#, headers: [("Cache-Control", "max-age=1")])
            }
            // One ETag for every user, the worst case: only the cache's partitioning keeps Bob's 304
            // from refreshing (and answering with) Alice's entry.
            let etag = "\"same-for-all\""
            if request.header("If-None-Match") == etag {
                return .status(304, headers: [("ETag", etag), ("Cache-Control", "no-cache")])
            }
            return .json(#"{"user":"\#(user)"}"#, headers: [("ETag", etag), ("Cache-Control", "no-cache")])
        default:
            return .status(404, body: "no route")
        }
    }
}

/// An endpoint whose every property is a stored value, so each kind sets only what it needs.
struct ChaosEndpoint: HTTPClient {
    var host: String
    var endpoint: String
    var method: RequestMethod = .get
    var headers: [String: String]?
    var body: EndpointBody?
    var timeout: TimeInterval? = 20
    var maxResponseSize: Int? = 1024 * 1024
    var transport: any HTTPTransport
    var middlewares: [any HTTPMiddleware] = []
}

/// What every call of one chaos run shares: the transport, the stores, the cache.
struct ChaosWorld: Sendable {
    let host: String
    let transport: any HTTPTransport
    let upload: URL
    let scratch: URL
    let server: ChaosServer
    let cache = ResponseCache()
    let inFlight = InFlightRequests()
    let userStores: [(user: String, store: CredentialStore)] = ["alice", "bob"].map { user in
        (user, CredentialStore(credential: { .header(name: "X-API-Key", value: "key-\(user)") }, refresh: { _ in .failed }))
    }
    let refreshingStore: CredentialStore
    /// Whether endless bodies come as fast as loopback allows, or as a slow drip (see `ChaosTests`).
    let fastEndlessBodies: Bool

    init(
        host: String, transport: any HTTPTransport, upload: URL, scratch: URL, server: ChaosServer, fastEndlessBodies: Bool
    ) {
        self.fastEndlessBodies = fastEndlessBodies
        self.host = host
        self.transport = transport
        self.upload = upload
        self.scratch = scratch
        self.server = server
        refreshingStore = CredentialStore(
            maximumRefreshes: 100_000, per: .seconds(1), credential: { .bearer("stale") },
            refresh: { _ in .refreshed(.bearer(server.currentToken())) })
    }

    func endpoint(_ path: String) -> ChaosEndpoint {
        ChaosEndpoint(host: host, endpoint: path, transport: transport)
    }

    /// Runs one call of `kind` and records how it ended.
    func run(_ kind: ChaosKind, id: Int, using generator: inout ChaosGenerator, into report: ChaosReport) async {
        // Cuts: a third of the cuttable calls is cancelled after 0–20 ms, a third gets a 5–50 ms deadline.
        let cut = Int.random(in: 0..<3, using: &generator)
        let cancelAfter = cut == 0 ? Int.random(in: 0...20_000, using: &generator) : nil
        let shortDeadline = cut == 1 ? Double.random(in: 0.005...0.050, using: &generator) : nil
        let ok = "success"
        switch kind {
        case .get:
            await report.call(
                id, kind, allowed: [ok],
                start: { done in
                    endpoint("get/\(id)").request(type: ChaosAnswer.self) { result in done(result.check { $0.id == id }) }
                })
        case .post:
            let n = Int.random(in: 0...1_000_000, using: &generator)
            var post = endpoint("post/\(id)")
            post.method = .post
            post.body = .json(["n": n])
            await report.call(
                id, kind, allowed: [ok],
                start: { done in
                    post.request(type: ChaosAnswer.self) { result in done(result.check { $0.id == id && $0.echo == n }) }
                })
        case .redirectChain:
            let status = [301, 302, 303, 307, 308].randomElement(using: &generator) ?? 302
            var chain = endpoint("chain/\(Int.random(in: 1...6, using: &generator))/\(status)/\(id)")
            chain.timeout = shortDeadline ?? 20
            await report.call(
                id, kind, allowed: [ok, "cancelled", "timedOut"], cancelAfter: cancelAfter,
                start: { done in chain.request(type: ChaosAnswer.self) { result in done(result.check { $0.id == id }) } })
        case .endless:
            var endless = endpoint("\(fastEndlessBodies ? "endless" : "drip")/\(id)")
            endless.timeout = .random(in: 0.05...0.3, using: &generator)
            endless.maxResponseSize = 4 * 1024 * 1024
            await report.call(
                id, kind, allowed: ["timedOut", "responseTooLarge"],
                start: { done in
                    endless.request(type: Data.self) { result in done(result.check { _ in false }) }
                })
        case .upload:
            var post = endpoint("upload/\(id)")
            post.method = .post
            post.body = .file(upload, contentType: "application/octet-stream")
            await report.call(
                id, kind, allowed: [ok, "cancelled"], cancelAfter: cancelAfter,
                start: { done in
                    post.request(type: ChaosAnswer.self) { result in
                        done(result.check { $0.id == id && $0.length == Int64(ChaosServer.uploadSize) })
                    }
                })
        case .download:
            let file = scratch.appendingPathComponent("download-\(id).bin")
            await report.call(
                id, kind, allowed: [ok],
                cancellable: { done in
                    // Downloads have no completion-handler form: a task stands for the handle.
                    let download = endpoint("download/\(id)")
                    let task = Task {
                        let result = await download.download(to: file)
                        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
                        try? FileManager.default.removeItem(at: file)
                        done(result.check { _ in size == ChaosServer.downloadSize })
                    }
                    return { task.cancel() }
                })
        case .refreshedCredential:
            var auth = endpoint("auth/\(id)")
            auth.middlewares = [AuthorizationMiddleware(refreshingStore, host: host)]
            // A 401 is the caller's answer when the token rotated again between refresh and resend.
            await report.call(
                id, kind, allowed: [ok, "unacceptableStatusCode(401)"],
                start: { done in
                    auth.request(type: ChaosAnswer.self) { result in done(result.check { $0.id == id }) }
                })
        case .retried503:
            var flaky = endpoint("flaky/\(id)")
            flaky.middlewares = [RetryMiddleware(policy: RetryPolicy(baseDelay: .milliseconds(5), maximumDelay: .seconds(1)))]
            let server = server
            await report.call(
                id, kind, allowed: [ok],
                start: { done in
                    flaky.request(type: ChaosAnswer.self) { result in done(result.check { $0.id == id && server.attempts(of: id) == 2 }) }
                })
        case .sharedCache:
            // Alice and Bob by API key (added by the authorization middleware), Carol by a cookie the
            // endpoint sets; one cache and one set of requests in flight for all three.
            let userIndex = Int.random(in: 0..<3, using: &generator)
            var profile = endpoint(Bool.random(using: &generator) ? "profile" : "profile-etag")
            let user: String
            var middlewares: [any HTTPMiddleware] = []
            if userIndex < 2 {
                user = userStores[userIndex].user
                middlewares.append(AuthorizationMiddleware(userStores[userIndex].store, host: host))
            } else {
                user = "carol"
                profile.headers = ["Cookie": "session=carol"]
            }
            profile.middlewares = middlewares + [CachingMiddleware(cache: cache), DeduplicationMiddleware(sharing: inFlight)]
            await report.call(
                id, kind, allowed: [ok],
                start: { done in
                    profile.request(type: ChaosAnswer.self) { result in
                        if case .success(let answer) = result, answer.user != user { report.crossedUser() }
                        done(result.check { $0.user == user })
                    }
                })
        }
    }
}

/// How one call ended: its outcome class, and whether its answer was the one it asked for.
struct ChaosEnding: Sendable {
    var outcome: String
    var answerIsItsOwn: Bool
}

extension Result where Failure == HTTPClientError {
    /// The ending, with `isItsOwn` judging a success's value.
    func check(_ isItsOwn: (Success) -> Bool) -> ChaosEnding {
        switch self {
        case .success(let value): ChaosEnding(outcome: "success", answerIsItsOwn: isItsOwn(value))
        case .failure(let error): ChaosEnding(outcome: error.caseName, answerIsItsOwn: true)
        }
    }
}

/// The tally of a chaos run, safe to update from every call's completion.
final class ChaosReport: Sendable {
    struct Summary {
        var calls = 0
        var outcomes: [String: Int] = [:]
        var successes: [ChaosKind: Int] = [:]
        var problems: [String] = []
        var deliveredTwice: [Int] = []
        var crossedUsers = 0
    }

    private let state = Locked(Summary())
    private let deliveries = Locked<[Int: Int]>([:])
    private let open = Locked<[Int: ChaosKind]>([:])

    func crossedUser() { state.withLock { $0.crossedUsers += 1 } }

    /// Starts a call, cancels it after `cancelAfter` microseconds when given, and waits for its first
    /// answer; a second answer is counted, never resumed.
    func call(
        _ id: Int, _ kind: ChaosKind, allowed: Set<String>, cancelAfter: Int? = nil,
        start: (@escaping @Sendable (ChaosEnding) -> Void) -> RequestHandle
    ) async {
        await call(id, kind, allowed: allowed, cancelAfter: cancelAfter) { done in
            let handle = start(done)
            return { handle.cancel() }
        }
    }

    /// Like the form above, for a call started some other way: `cancellable` returns what cancels it.
    func call(
        _ id: Int, _ kind: ChaosKind, allowed: Set<String>, cancelAfter: Int? = nil,
        cancellable start: (@escaping @Sendable (ChaosEnding) -> Void) -> @Sendable () -> Void
    ) async {
        open.withLock { $0[id] = kind }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let cancel = start { ending in
                let first = self.deliveries.withLock { counts -> Bool in
                    counts[id, default: 0] += 1
                    return counts[id] == 1
                }
                guard first else {
                    self.state.withLock { $0.deliveredTwice.append(id) }
                    return
                }
                self.open.withLock { _ = $0.removeValue(forKey: id) }
                self.state.withLock { summary in
                    summary.calls += 1
                    summary.outcomes["\(kind.rawValue): \(ending.outcome)", default: 0] += 1
                    if ending.outcome == "success", ending.answerIsItsOwn { summary.successes[kind, default: 0] += 1 }
                    if !allowed.contains(ending.outcome) || !ending.answerIsItsOwn {
                        summary.problems.append("call \(id) (\(kind)): \(ending.outcome), its own answer: \(ending.answerIsItsOwn)")
                    }
                }
                continuation.resume()
            }
            if let cancelAfter {
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(cancelAfter)) { cancel() }
            }
        }
    }

    func summary() -> Summary { state.withLock { $0 } }
    /// The kinds no call of has succeeded yet, except `.endless`, which never succeeds.
    func kindsWithoutSuccess() -> [ChaosKind] {
        state.withLock { summary in ChaosKind.allCases.filter { $0 != .endless && summary.successes[$0, default: 0] == 0 } }
    }
    func openCalls() -> [String] { open.withLock { $0.map { "\($0.key) (\($0.value))" } } }
}

/// SplitMix64, so each worker draws its own reproducible sequence.
struct ChaosGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
