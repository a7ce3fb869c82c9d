import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

extension Serialized {
    /// Many requests through one `URLSessionTransport` against the in-process server: every call
    /// ends exactly once with the answer or the error its request asked for, and nothing stays
    /// behind (resident memory, URLSession tasks).
    ///
    /// `SOAK_REQUESTS` sets the count of each test (default 2,000; CI's full-size step runs 10,000),
    /// `SOAK_SEED` replays a run. Under a sanitizer (`ENDPOINTROUTER_SANITIZER` set) resident
    /// memory is reported but not bounded: shadow memory and ASan's quarantine of freed blocks make
    /// it grow whatever the library does.
    @Suite("Soak on URLSessionTransport")
    struct SoakTests {
        static let count = Int(ProcessInfo.processInfo.environment["SOAK_REQUESTS"] ?? "") ?? 2_000
        static let inFlight = 64
        static let faultPercent = Int(ProcessInfo.processInfo.environment["SOAK_FAULT_PERCENT"] ?? "") ?? 5
        /// Resident memory after a run may exceed the figure before it by this much.
        static let memoryBound = 10 * 1024 * 1024
        static let isSanitized = ProcessInfo.processInfo.environment["ENDPOINTROUTER_SANITIZER"] != nil

        /// What the server does to one request, read from its query (`?fault=...`), so the answer
        /// is fixed by the request alone whatever order requests arrive in.
        enum Fault: String, CaseIterable, Sendable {
            case none
            /// The connection closes before the status line.
            case reset
            /// `Content-Length: 4096`, 10 bytes, then the connection closes.
            case closedMidBody
            /// `500` with a JSON body that carries the id.
            case serverError
            /// The answer comes 3 s after a 0.3 s deadline.
            case slow
            /// `200` with JSON cut short.
            case badJSON
        }

        struct Echo: Decodable, Sendable {
            let id: Int
        }

        /// The id in `/soak/<id>`, echoed in every body so a response delivered to the wrong caller shows.
        static func id(in request: RecordedRequest) -> Int {
            Int(request.path.split(separator: "/").last ?? "") ?? -1
        }

        static func respond(to request: RecordedRequest) -> ScriptedResponse {
            let id = id(in: request)
            let fault =
                request.query.flatMap { query in
                    query.split(separator: "&").first { $0.hasPrefix("fault=") }.flatMap { Fault(rawValue: String($0.dropFirst(6))) }
                } ?? .none
            switch fault {
            case .none:
                return .json(#"{"id":\#(id)}"#)
            case .reset:
                return .closeWithoutResponse
            case .closedMidBody:
                return ScriptedResponse(
                    status: 200, headers: [("Content-Type", "application/json"), ("Content-Length", "4096")],
                    body: Data(#"{"id":\#(id),"#.utf8), behavior: .closeDelimited)
            case .serverError:
                return .json(#"{"id":\#(id),"error":"injected"}"#, status: 500)
            case .slow:
                return ScriptedResponse.json(#"{"id":\#(id)}"#).delayed(by: 3)
            case .badJSON:
                return .json(#"{"id":\#(id),"name":"cut"#)
            }
        }

        /// How a call ended, kept small: a round holds one per request, and holding whole responses
        /// would be counted as memory growth of the client.
        enum Outcome: Sendable, Equatable {
            case success(id: Int)
            case transport(URLError.Code)
            case timedOut
            case cancelled
            /// An unacceptable status, with the id its body echoed (`nil` when it echoed none).
            case status(Int, echoedID: Int?)
            /// JSON that did not decode, with the id its body echoed.
            case decodingFailed(echoedID: Int?)
            case other(String)

            init(_ result: Result<Echo, HTTPClientError>) {
                switch result {
                case .success(let echo): self = .success(id: echo.id)
                case .failure(.transport(let error)): self = .transport(error.code)
                case .failure(.timedOut): self = .timedOut
                case .failure(.cancelled): self = .cancelled
                case .failure(.unacceptableStatusCode(let response)):
                    self = .status(response.statusCode, echoedID: Self.echoedID(in: response.data))
                case .failure(.decodingFailed(let response, _)): self = .decodingFailed(echoedID: Self.echoedID(in: response.data))
                case .failure(let error): self = .other("\(error)")
                }
            }

            /// `N` from a body starting `{"id":N,`.
            static func echoedID(in body: Data) -> Int? {
                let prefix = Data(#"{"id":"#.utf8)
                guard body.starts(with: prefix) else { return nil }
                let digits = body.dropFirst(prefix.count).prefix { (0x30...0x39).contains($0) }
                return Int(String(decoding: digits, as: UTF8.self))
            }
        }

        /// Whether `outcome` is what a request with `fault` must end with, the id checked wherever a
        /// body came back.
        static func isExpected(_ outcome: Outcome, for fault: Fault, id: Int) -> Bool {
            switch (fault, outcome) {
            case (.none, .success(let echoed)): return echoed == id
            case (.reset, .transport), (.closedMidBody, .transport): return true
            case (.serverError, .status(let status, let echoed)): return status == 500 && echoed == id
            case (.slow, .timedOut): return true
            case (.badJSON, .decodingFailed(let echoed)): return echoed == id
            default: return false
            }
        }

        /// `faultPercent` (5 %) faults, spread evenly over the five kinds.
        static func faults(count: Int, seed: UInt64) -> [Fault] {
            var random = SeededGenerator(state: seed)
            let kinds = Fault.allCases.filter { $0 != .none }
            return (0..<count).map { _ in
                Int.random(in: 0..<100, using: &random) < faultPercent ? kinds[Int.random(in: 0..<kinds.count, using: &random)] : .none
            }
        }

        @Test func mixedFaultsEndEveryRequestExactlyOnceUncrossed() async throws {
            let seed = UInt64(ProcessInfo.processInfo.environment["SOAK_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
            let faults = Self.faults(count: Self.count, seed: seed)
            let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: Self.inFlight))
            let makeServer = { try TestServer { Self.respond(to: $0) } }
            let soak = try await Self.soak(transport, server: makeServer) { host, id, done in
                _ = TestEndpoint(
                    host: host, endpoint: "soak/\(id)", parameters: faults[id] == .none ? nil : ["fault": faults[id].rawValue],
                    timeout: faults[id] == .slow ? 0.3 : 30, transport: transport
                ).request(type: Echo.self) { done($0) }
            }
            let faultCounts = Dictionary(grouping: faults, by: \.self).mapValues(\.count)
            print(
                "soak: \(Self.count) requests, \(Self.inFlight) in flight, faults "
                    + Fault.allCases.map { "\($0)=\(faultCounts[$0] ?? 0)" }.joined(separator: " ") + ", seed \(seed): \(soak.summary)")
            for (round, run) in [soak.settling, soak.measured].enumerated() {
                var unexpected: [String] = []
                for (id, outcome) in run.outcomes.enumerated() {
                    if let outcome, !Self.isExpected(outcome, for: faults[id], id: id) {
                        unexpected.append("#\(id) (\(faults[id])): \(outcome)")
                    }
                }
                #expect(
                    run.unanswered.isEmpty,
                    "seed \(seed), round \(round + 1): \(run.unanswered.count) requests never ended, e.g. \(Array(run.unanswered.prefix(5)))"
                )
                #expect(
                    run.repeated.isEmpty, "seed \(seed), round \(round + 1): requests \(Array(run.repeated.prefix(5))) ended more than once"
                )
                #expect(
                    unexpected.isEmpty,
                    "seed \(seed), round \(round + 1): \(unexpected.count) requests ended unexpectedly: \(Array(unexpected.prefix(5)))")
            }
            soak.expectNothingLeft(transport)
        }

        /// Each request waits on a server that never answers and ends at its 50 ms deadline.
        @Test func requestsThatTimeOutLeaveNothingBehind() async throws {
            let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: Self.inFlight))
            let makeServer = { try TestServer(response: .hang) }
            let soak = try await Self.soak(transport, server: makeServer) { host, id, done in
                _ = TestEndpoint(host: host, endpoint: "hang/\(id)", timeout: 0.05, transport: transport).request(type: Echo.self) {
                    done($0)
                }
            }
            print("soak: \(Self.count) requests timing out after 50 ms, \(Self.inFlight) in flight: \(soak.summary)")
            for run in [soak.settling, soak.measured] {
                let notTimedOut = run.outcomes.compactMap { $0 }.filter { $0 != .timedOut }
                #expect(run.unanswered.isEmpty, "\(run.unanswered.count) requests never ended")
                #expect(run.repeated.isEmpty, "requests \(Array(run.repeated.prefix(5))) ended more than once")
                #expect(notTimedOut.isEmpty, "\(notTimedOut.count) did not time out, e.g. \(Array(notTimedOut.prefix(3)))")
            }
            soak.expectNothingLeft(transport)
        }

        /// Each request is cancelled 0–50 ms after it starts, against answers that take 0–20 ms: the
        /// cancel lands before the task starts, while it waits, or after the answer.
        @Test func requestsCancelledAtRandomLeaveNothingBehind() async throws {
            let seed = UInt64(ProcessInfo.processInfo.environment["SOAK_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
            var random = SeededGenerator(state: seed)
            let delays = (0..<Self.count).map { _ in Int.random(in: 0...50_000, using: &random) }
            let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: Self.inFlight))
            let server = {
                try TestServer { request in
                    let id = Self.id(in: request)
                    return ScriptedResponse.json(#"{"id":\#(id)}"#).delayed(by: Double(id % 11) * 2 / 1000)
                }
            }
            let soak = try await Self.soak(transport, server: server) { host, id, done in
                let handle = TestEndpoint(host: host, endpoint: "cancel/\(id)", timeout: 30, transport: transport)
                    .request(type: Echo.self) { done($0) }
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delays[id])) { handle.cancel() }
            }
            var cancelled = 0
            for run in [soak.settling, soak.measured] {
                var wrong: [String] = []
                for (id, outcome) in run.outcomes.enumerated() {
                    switch outcome {
                    case .cancelled?: cancelled += 1
                    case .success(let echoed)? where echoed == id: break
                    case nil: break
                    case let other?: wrong.append("#\(id): \(other)")
                    }
                }
                #expect(run.unanswered.isEmpty, "seed \(seed): \(run.unanswered.count) requests never ended")
                #expect(run.repeated.isEmpty, "seed \(seed): requests \(Array(run.repeated.prefix(5))) ended more than once")
                #expect(
                    wrong.isEmpty,
                    "seed \(seed): \(wrong.count) ended with neither .cancelled nor their own answer: \(Array(wrong.prefix(3)))")
            }
            print(
                "soak: \(Self.count) requests cancelled at random, \(Self.inFlight) in flight, seed \(seed): "
                    + "\(cancelled) of \(2 * Self.count) cancelled, the rest answered first; \(soak.summary)")
            #expect(cancelled > 0, "no cancel landed before the answer: the test did not test cancellation")
            // A sanitizer slows every answer past the 50 ms window, so each cancel may land first there;
            // the unsanitized runs (swift test, the full-size step) check that answers do race cancels.
            if !Self.isSanitized {
                #expect(cancelled < 2 * Self.count, "no answer came before its cancel: the test did not test the race")
            }
            soak.expectNothingLeft(transport)
        }

        // MARK: Two rounds

        /// Two rounds of `count` calls through one transport, each against a fresh server.
        ///
        /// Memory is compared across the second round only. The first brings the process to its
        /// steady state (allocator arenas, URLSession's and libcurl's pools, threads), and its server,
        /// which keeps every request it received (~2.7 KB each), is released before the baseline is
        /// taken; the second server's records then reuse that freed memory. A per-request leak in
        /// the client grows the second round as much as the first.
        static func soak(
            _ transport: URLSessionTransport,
            server makeServer: () throws -> TestServer,
            _ call: @escaping @Sendable (String, Int, @escaping @Sendable (Result<Echo, HTTPClientError>) -> Void) -> Void
        ) async throws -> Soak {
            let limit = Duration.seconds(count / 20 + 60)
            let settling: Run
            do {
                let server = try makeServer()
                defer { server.stop() }
                let host = server.baseURL
                settling = await run(count: count, limit: limit) { call(host, $0, $1) }
                _ = await drained(transport)
            }
            let before = MemorySampler.residentBytes()
            let server = try makeServer()
            defer { server.stop() }
            let host = server.baseURL
            let (measured, seconds) = await timed { await run(count: count, limit: limit) { call(host, $0, $1) } }
            let drained = await drained(transport)
            return Soak(
                settling: settling, measured: measured, seconds: seconds, before: before,
                after: MemorySampler.residentBytes(), drained: drained)
        }

        struct Soak {
            let settling: Run
            let measured: Run
            /// How long the measured round took.
            let seconds: Double
            let before: Int
            let after: Int
            /// Whether every URLSession task reported completion within 5 s of the round's end.
            let drained: Bool

            var summary: String {
                "\(String(format: "%.1f", seconds)) s for the second round, resident \(after / 1_048_576) MiB after it vs "
                    + "\(before / 1_048_576) MiB before (\(String(format: "%+.1f", Double(after - before) / 1_048_576)) MiB), "
                    + "\(drained ? "no" : "some") URLSession task left running"
            }

            func expectNothingLeft(_ transport: URLSessionTransport, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(drained, "URLSession tasks still running: \(transport.activeExchangeCount)", sourceLocation: sourceLocation)
                if !SoakTests.isSanitized {
                    #expect(
                        after - before < SoakTests.memoryBound, "resident memory grew by \(after - before) bytes",
                        sourceLocation: sourceLocation)
                }
            }
        }

        // MARK: Driving many calls

        struct Run {
            /// How each id's call first ended.
            var outcomes: [Outcome?]
            /// How many times each id's handler ran: once each when all is well.
            var deliveries: [Int]
            var unanswered: [Int] { deliveries.indices.filter { deliveries[$0] == 0 } }
            var repeated: [Int] { deliveries.indices.filter { deliveries[$0] > 1 } }
        }

        /// Starts `count` calls, `inFlight` at a time, each handing its result to `done`; returns
        /// when all have ended or `limit` has passed (so a lost request fails the test instead of
        /// hanging it), then waits 100 ms more so a second delivery would show.
        static func run(
            count: Int,
            limit: Duration,
            _ start: @escaping @Sendable (Int, @escaping @Sendable (Result<Echo, HTTPClientError>) -> Void) -> Void
        ) async -> Run {
            let results = Locked(Run(outcomes: Array(repeating: nil, count: count), deliveries: Array(repeating: 0, count: count)))
            let (ended, continuation) = AsyncStream<Int>.makeStream()
            let launch = { @Sendable (id: Int) in
                start(id) { result in
                    let outcome = Outcome(result)
                    results.withLock { run in
                        run.deliveries[id] += 1
                        if run.outcomes[id] == nil { run.outcomes[id] = outcome }
                    }
                    continuation.yield(id)
                }
            }
            let watchdog = Task {
                try? await Task.sleep(for: limit)
                continuation.finish()
            }
            var next = 0
            while next < min(count, inFlight) {
                launch(next)
                next += 1
            }
            var finished = 0
            for await _ in ended {
                finished += 1
                if next < count {
                    launch(next)
                    next += 1
                }
                if finished >= count { break }
            }
            watchdog.cancel()
            try? await Task.sleep(nanoseconds: 100_000_000)
            return results.withLock { $0 }
        }

        /// `body`'s result and the seconds it took.
        static func timed<R>(_ body: () async -> R) async -> (R, Double) {
            let start = ContinuousClock.now
            let result = await body()
            let elapsed = ContinuousClock.now - start
            return (result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }

        /// Whether every URLSession task of `transport` has reported completion within 5 s: the
        /// library answers a cancelled or late call at once, and URLSession's own end follows.
        static func drained(_ transport: URLSessionTransport) async -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(5)
            while transport.activeExchangeCount > 0 {
                if clock.now > deadline { return false }
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            return true
        }
    }
}
