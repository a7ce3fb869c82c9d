import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `HTTPTransport` contract, checked the same way for every transport the library ships, each
/// called directly with `send(_:context:sink:)` and a sink that records every call.
///
/// | Scenario                                   | URLSession | Stub | Replay | Recording(URLSession) |
/// |--------------------------------------------|:----------:|:----:|:------:|:---------------------:|
/// | 1 one exchange: a 302 is returned          |     ✓      |  ✓   |   ✓    |           ✓           |
/// | 2 404 / 500 and headers pass through       |     ✓      |  ✓   |   ✓    |           ✓           |
/// | 3 body in pieces, byte-identical           |     ✓      |  ✓   |   ✓    |           ✓           |
/// | 4 the sink's refusal stops the exchange    |     ✓      |  ✓   |   ✓    |           ✓           |
/// | 5 20 MiB streamed into a file              |     ✓      |  ✓   |   ✓    |           ✓           |
/// | 6a cancel mid-body                         |     ✓      |  ✓   |   ✓    |           ✓           |
/// | 6b cancel while no answer has come         |     ✓      |  ✓   |   –    |           ✓           |
/// | 7 a short deadline is not outlived         |     ✓      |  ✓   |   –    |           ✓           |
/// | 8 request bytes arrive as sent             |     ✓      |  ✓   |   ✓    |           ✓           |
///
/// – : a recording is answered as soon as it is read; replay cannot keep an answer back.
///
/// Live transports answer from an in-process server on 127.0.0.1; the others from routes or
/// recordings made from the same scenarios (see ``TransportUnderTest``). One test at a time, because
/// the timings are measured on a 2-core machine.
@Suite("Transport conformance", .serialized)
struct TransportConformanceTests {
    typealias Scenario = TransportUnderTest.Scenario

    static let all = TransportUnderTest.all
    static let holdingBack = TransportUnderTest.all.filter(\.canHoldAnAnswerBack)

    // MARK: 1. One exchange

    @Test("1 One exchange: a 302 comes back as the response, not followed", arguments: all)
    func aRedirectIsAResponse(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([.redirect, .landing]) { served in
            let sink = ProbeSink()
            let outcome = try #require(await Self.send(served, .redirect, into: sink))
            let head = try #require(outcome.head, "threw \(String(describing: outcome.error))")
            #expect(head.statusCode == 302)
            #expect(head.headers["Location"] == "/landing")
            #expect(sink.receiveCount == 1)
            #expect(sink.receivedBeforeAnyWrite)
            #expect(sink.writeCount > 0, "the 302's body was delivered too")
            #expect(sink.body == Data("moved".utf8))
            #expect(sink.receivedHead == head, "send returns the head it delivered")
            #expect(served.requestsSeen().map(\.target) == ["/moved"], "exactly one request, nothing sent to /landing")
        }
    }

    // MARK: 2. Status and headers

    @Test("2 Any status is a response, and its headers pass through", arguments: all, [404, 500])
    func statusAndHeadersPassThrough(_ kind: TransportUnderTest, _ status: Int) async throws {
        let scenario = Scenario.failing(status)
        try await kind.withServed([scenario]) { served in
            let sink = ProbeSink()
            let outcome = try #require(await Self.send(served, scenario, into: sink))
            let head = try #require(outcome.head, "a \(status) must be a head, not the error \(String(describing: outcome.error))")
            #expect(head.statusCode == status)
            #expect(head.headers["X-Test"] == "a")
            #expect(head.headers["x-test"] == "a")
            #expect(head.headers["X-TEST"] == "a")
            #expect(sink.body == Data("status \(status)".utf8))
            #expect(sink.receiveCount == 1)
        }
    }

    // MARK: 3. Body in pieces

    @Test("3 The body arrives in pieces, byte-identical, after the head", arguments: all)
    func bodyInPieces(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([.pattern300KiB]) { served in
            let sink = ProbeSink()
            let outcome = try #require(await Self.send(served, .pattern300KiB, into: sink))
            #expect(outcome.head?.statusCode == 200, "threw \(String(describing: outcome.error))")
            #expect(sink.receiveCount == 1)
            #expect(sink.receivedBeforeAnyWrite)
            #expect(sink.writeCount > 1, "a 300 KiB body should come in more than one piece")
            #expect(sink.overlappingCalls == 0, "calls into the sink must not overlap")
            #expect(sink.body.count == 300 * 1024)
            #expect(ScriptedResponse.firstPatternMismatch(in: sink.body) == nil)
            #expect(sink.receivedHead == outcome.head)
        }
    }

    // MARK: 4. The sink's limit

    @Test("4 When the sink refuses part-way, the transport stops and throws that error", arguments: all)
    func sinkRefusalStopsTheExchange(_ kind: TransportUnderTest) async throws {
        let limit = 1024 * 1024
        try await kind.withServed([.pattern5MiB]) { served in
            let sink = ProbeSink(limit: limit, keepsBody: false)
            let outcome = try #require(await Self.send(served, .pattern5MiB, into: sink))
            #expect(outcome.error == .responseTooLarge(limit: limit))
            let refusedAt = try #require(sink.refusedAt, "the sink never had to refuse")
            let stoppedAfter = refusedAt.duration(to: outcome.returnedAt)
            #expect(stoppedAfter < .milliseconds(100), "send returned \(stoppedAfter) after the sink threw")
            try await Task.sleep(for: .milliseconds(100))  // time for a stray write to show
            #expect(sink.callsAfterRefusal == 0, "the transport went on writing after the sink threw")
            #expect(sink.acceptedBytes > 0 && sink.acceptedBytes <= limit)
            print("conformance 4 [\(kind.name)]: send returned \(stoppedAfter) after the sink refused at \(sink.acceptedBytes) bytes")
        }
    }

    // MARK: 5. Download streaming

    @Test("5 A 20 MiB body streams into a file sink, byte-identical", arguments: all)
    func downloadIntoAFile(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([.pattern20MiB]) { served in
            try await withTemporaryDirectory { folder in
                let file = folder.appendingPathComponent("download.bin")
                let sink = try FileSink(file)
                let outcome = try #require(await Self.send(served, .pattern20MiB, into: sink, seconds: 60))
                sink.close()
                #expect(outcome.head?.statusCode == 200, "threw \(String(describing: outcome.error))")
                #expect(sink.receiveCount == 1)
                let written = try Data(contentsOf: file)
                #expect(written.count == 20 * 1024 * 1024)
                #expect(ScriptedResponse.firstPatternMismatch(in: written) == nil)
            }
        }
    }

    // MARK: 6. Cancellation

    /// Cancelled while the body flows (the sink takes 2 ms a piece, as a slow disk would, so that a
    /// stub's or a recording's body cannot be over before the test cancels).
    @Test("6a Cancelling the task mid-body ends send with .cancelled within 50 ms", arguments: all)
    func cancellingMidBody(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([.endless]) { served in
            var timings: [CancelTiming] = []
            for _ in 0..<CancelTiming.tries {
                let sink = ProbeSink(keepsBody: false, pace: .milliseconds(2))
                let request = try served.request(for: .endless)
                let task = Task { await Self.send(served.transport, request, into: sink) }
                guard await Self.eventually("the first piece of the body", { sink.writeCount > 0 }) else {
                    task.cancel()
                    return
                }
                timings.append(try await Self.cancel(task, sink: sink, kind: kind, label: "6a mid-body"))
            }
            let problems = CancelTiming.problems(in: timings, returnedWithin: .milliseconds(50), endedWithin: .milliseconds(50))
            #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
        }
    }

    @Test("6b Cancelling the task before any answer ends send with .cancelled within 50 ms", arguments: holdingBack)
    func cancellingBeforeTheHead(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([.silent]) { served in
            var timings: [CancelTiming] = []
            for _ in 0..<CancelTiming.tries {
                let sink = ProbeSink()
                let request = try served.request(for: .silent)
                let seenBefore = served.requestsSeen().count
                let task = Task { await Self.send(served.transport, request, into: sink) }
                guard await Self.eventually("the request reaching the other end", { served.requestsSeen().count > seenBefore }) else {
                    task.cancel()
                    return
                }
                try await Task.sleep(for: .milliseconds(20))  // well inside the wait for an answer
                timings.append(try await Self.cancel(task, sink: sink, kind: kind, label: "6b before the head"))
                #expect(sink.receiveCount == 0)
            }
            let problems = CancelTiming.problems(in: timings, returnedWithin: .milliseconds(50), endedWithin: .milliseconds(50))
            #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
        }
    }

    // MARK: 7. Deadline

    /// What the contract requires: a transport may ignore `context.deadline`, because the library
    /// enforces it above the transport by cancelling the transport's task when it passes. So at a
    /// short deadline a transport must either give up by itself (a stub's latency does, with
    /// `.timedOut`) or end promptly once cancelled there (URLSession's own timer is whole seconds
    /// and later). Either way `send` must have ended within 1 s of being called with 0.3 s to go,
    /// with an error, since the other end never answered. The test does exactly what the library
    /// does: it cancels the task at the deadline if `send` is still running.
    @Test("7 A short deadline is not outlived: send ends within 1 s", arguments: holdingBack)
    func shortDeadline(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([.silent]) { served in
            let sink = ProbeSink()
            let request = try served.request(for: .silent)
            let start = ContinuousClock.now
            let context = CallContext(endpointName: "Conformance.deadline", deadline: start + .milliseconds(300))
            let task = Task { await Self.send(served.transport, request, context: context, into: sink) }
            try await Task.sleep(until: context.deadline, clock: .continuous)
            let cancelledAt = ContinuousClock.now
            task.cancel()
            let outcome = try #require(await bounded(3) { await task.value })
            let took = start.duration(to: outcome.returnedAt)
            #expect(outcome.error != nil, "nothing answered, yet send returned \(String(describing: outcome.head))")
            #expect(took < .seconds(1), "send ended \(took) after it was called with 0.3 s to go")
            let how = outcome.error == .cancelled ? "once cancelled at the deadline" : "by itself"
            print(
                "conformance 7 [\(kind.name)]: ended \(how) \(took) after the call, "
                    + "\(cancelledAt.duration(to: outcome.returnedAt)) after the deadline, with \(String(describing: outcome.error))")
        }
    }

    // MARK: 8. Request bytes

    @Test("8 Method, path and query, headers and body arrive exactly as sent", arguments: all)
    func requestArrivesAsSent(_ kind: TransportUnderTest) async throws {
        try await kind.withServed([.upload]) { served in
            let outcome = try #require(await Self.send(served, .upload, into: ProbeSink()))
            #expect(outcome.head?.statusCode == 201, "threw \(String(describing: outcome.error))")
            let seen = served.requestsSeen()
            try #require(seen.count == 1)
            #expect(seen[0].method == "POST")
            #expect(seen[0].target == "/upload/items?q=a%20b&n=1")
            #expect(seen[0].headers["X-Trace"] == "abc-123")
            #expect(seen[0].headers["Content-Type"] == "application/octet-stream")
            #expect(seen[0].body == Scenario.uploadBody)
        }
    }
}

// MARK: - The scenarios

extension TransportUnderTest.Scenario {
    static let redirect = Self(
        target: "/moved",
        answer: .respond(
            status: 302, headers: ["Location": "/landing", "Content-Type": "text/plain"], body: .bytes(Data("moved".utf8))))
    /// Where the redirect points: a transport that follows it gets a 200 from here.
    static let landing = Self(target: "/landing", answer: .respond(status: 200, headers: [:], body: .bytes(Data("landed".utf8))))

    static func failing(_ status: Int) -> Self {
        Self(
            target: "/status/\(status)",
            answer: .respond(
                status: status, headers: ["Content-Type": "text/plain", "X-Test": "a"], body: .bytes(Data("status \(status)".utf8))))
    }

    static let pattern300KiB = Self(target: "/pattern/300k", answer: .respond(status: 200, headers: [:], body: .pattern(count: 300 * 1024)))
    static let pattern5MiB = Self(
        target: "/pattern/5m", answer: .respond(status: 200, headers: [:], body: .pattern(count: 5 * 1024 * 1024)))
    static let pattern20MiB = Self(
        target: "/pattern/20m", answer: .respond(status: 200, headers: [:], body: .pattern(count: 20 * 1024 * 1024)))
    static let endless = Self(target: "/endless", answer: .respond(status: 200, headers: [:], body: .endless))
    static let silent = Self(target: "/silent", answer: .never)

    /// Not UTF-8, with a CRLF, a NUL and a byte that no text has.
    static let uploadBody = Data("line one\r\nü, {\"a\":1}".utf8) + Data([0x00, 0xFF, 0x7F])
    static let upload = Self(
        method: .post, target: "/upload/items?q=a%20b&n=1",
        requestHeaders: ["X-Trace": "abc-123", "Content-Type": "application/octet-stream"],
        requestBody: uploadBody,
        answer: .respond(status: 201, headers: [:], body: .bytes(Data("created".utf8))))
}

// MARK: - Calling a transport

extension TransportConformanceTests {
    /// What one `send` produced, and when it returned.
    struct Outcome: Sendable {
        let result: Result<ResponseHead, HTTPClientError>
        let returnedAt: ContinuousClock.Instant

        var head: ResponseHead? { try? result.get() }
        var error: HTTPClientError? {
            if case .failure(let error) = result { error } else { nil }
        }
    }

    static func send(
        _ transport: any HTTPTransport,
        _ request: OutgoingRequest,
        context: CallContext = makeContext(seconds: 60),
        into sink: any ResponseBodySink
    ) async -> Outcome {
        let result: Result<ResponseHead, HTTPClientError>
        do {
            result = .success(try await transport.send(request, context: context, sink: sink))
        } catch {
            result = .failure(error)
        }
        return Outcome(result: result, returnedAt: .now)
    }

    /// Sends `scenario`'s request, failing the test instead of hanging after `seconds`. The bound is
    /// loose because corelibs serves every URLSession in the process from one work queue, so a fast
    /// transfer in a suite running beside this one can hold an exchange back for seconds; what each
    /// test asserts is measured from the moment that matters (a refusal, a cancel), not from here.
    static func send(
        _ served: TransportUnderTest.Served,
        _ scenario: Scenario,
        into sink: any ResponseBodySink,
        seconds: Double = 30,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome? {
        let request = try served.request(for: scenario)
        return await bounded(seconds, sourceLocation: sourceLocation) { await send(served.transport, request, into: sink) }
    }

    /// Waits up to `seconds` for `condition`, polling every millisecond; records an issue if it never holds.
    static func eventually(
        _ what: String,
        seconds: Double = 5,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () -> Bool
    ) async -> Bool {
        let limit = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < limit else {
                Issue.record("waited \(seconds) s for \(what)", sourceLocation: sourceLocation)
                return false
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// Cancels `task`, checks that `send` ends with `.cancelled` (within 2 s, so a hang fails), and
    /// answers how long `cancel()` and `send` took.
    static func cancel(
        _ task: Task<Outcome, Never>,
        sink: ProbeSink,
        kind: TransportUnderTest,
        label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CancelTiming {
        let writesBefore = sink.writeCount
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let cancelReturned = cancelledAt.duration(to: .now)
        let outcome = try #require(
            await bounded(2, sourceLocation: sourceLocation) { await task.value },
            sourceLocation: sourceLocation)
        sink.seal(at: outcome.returnedAt)
        let ended = cancelledAt.duration(to: outcome.returnedAt)
        #expect(
            outcome.error == .cancelled, "send ended with \(String(describing: outcome.result))",
            sourceLocation: sourceLocation)
        try await Task.sleep(for: .milliseconds(50))
        print(
            "conformance \(label) [\(kind.name)]: task.cancel() returned in \(cancelReturned), send ended "
                + "\(ended) after it; \(writesBefore) pieces before the cancel, \(sink.callsAfterSealing) after send returned")
        return CancelTiming(returned: cancelReturned, ended: ended)
    }
}

// MARK: - Sinks

extension TransportConformanceTests {
    /// Records every call a transport makes, in order, as the library's sink would receive them.
    ///
    /// With a `limit`, it refuses the write that would cross it with `.responseTooLarge(limit:)`, and
    /// every call after that, as the library's sink does; `pace` makes every write take that long, as
    /// a slow disk would.
    final class ProbeSink: ResponseBodySink {
        enum Call: Equatable {
            case receive
            case write(Int)
        }

        private struct State {
            var calls: [Call] = []
            var head: ResponseHead?
            var body = Data()
            var acceptedBytes = 0
            var refusedAt: ContinuousClock.Instant?
            var callsAfterRefusal = 0
            var sealedAt: ContinuousClock.Instant?
            var callsAfterSealing = 0
            var inCall = false
            var overlappingCalls = 0
        }

        let limit: Int?
        let keepsBody: Bool
        let pace: Duration
        private let state = Locked(State())

        init(limit: Int? = nil, keepsBody: Bool = true, pace: Duration = .zero) {
            self.limit = limit
            self.keepsBody = keepsBody
            self.pace = pace
        }

        func receive(_ head: ResponseHead) throws(HTTPClientError) {
            let refusal = enter { state -> HTTPClientError? in
                state.calls.append(.receive)
                state.head = head
                return nil
            }
            leave()
            if let refusal { throw refusal }
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
            let refusal = enter { state -> HTTPClientError? in
                state.calls.append(.write(bytes.count))
                if let limit, state.acceptedBytes + bytes.count > limit {
                    state.refusedAt = .now
                    return .responseTooLarge(limit: limit)
                }
                state.acceptedBytes += bytes.count
                if keepsBody { state.body.append(contentsOf: bytes) }
                return nil
            }
            if pace > .zero { usleep(UInt32(pace / .microseconds(1))) }
            leave()
            if let refusal { throw refusal }
        }

        /// Marks the call as over (`send` returned at `instant`): later calls are counted and refused.
        func seal(at instant: ContinuousClock.Instant) {
            state.withLock { $0.sealedAt = instant }
        }

        /// Bookkeeping common to every call; `step` runs only while the sink still accepts calls.
        private func enter(_ step: (inout State) -> HTTPClientError?) -> HTTPClientError? {
            state.withLock { state in
                if state.inCall { state.overlappingCalls += 1 }
                state.inCall = true
                if let sealedAt = state.sealedAt, ContinuousClock.now > sealedAt {
                    state.callsAfterSealing += 1
                    return .cancelled
                }
                if let limit, state.refusedAt != nil {
                    state.callsAfterRefusal += 1
                    return .responseTooLarge(limit: limit)
                }
                return step(&state)
            }
        }

        private func leave() {
            state.withLock { $0.inCall = false }
        }

        var receiveCount: Int { state.withLock { $0.calls.filter { $0 == .receive }.count } }
        var writeCount: Int { state.withLock { $0.calls.count { $0 != .receive } } }
        /// Whether the first call was `receive`, and no `receive` came after a write.
        var receivedBeforeAnyWrite: Bool {
            state.withLock { $0.calls.first == .receive && !$0.calls.dropFirst().contains(.receive) }
        }
        var receivedHead: ResponseHead? { state.withLock { $0.head } }
        var body: Data { state.withLock { $0.body } }
        var acceptedBytes: Int { state.withLock { $0.acceptedBytes } }
        var refusedAt: ContinuousClock.Instant? { state.withLock { $0.refusedAt } }
        var callsAfterRefusal: Int { state.withLock { $0.callsAfterRefusal } }
        var callsAfterSealing: Int { state.withLock { $0.callsAfterSealing } }
        var overlappingCalls: Int { state.withLock { $0.overlappingCalls } }
    }

    /// Writes the body to a file as it arrives, as a download does.
    final class FileSink: ResponseBodySink {
        private struct State {
            var handle: FileHandle?
            var receiveCount = 0
        }

        private let state: Locked<State>

        init(_ file: URL) throws {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw TestFailure("cannot create \(file.path)")
            }
            state = Locked(State(handle: try FileHandle(forWritingTo: file)))
        }

        func receive(_ head: ResponseHead) throws(HTTPClientError) {
            state.withLock { $0.receiveCount += 1 }
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
            try state.withLock { state throws(HTTPClientError) in
                guard let handle = state.handle else { throw .cancelled }
                do {
                    try handle.write(contentsOf: Data(bytes))
                } catch {
                    throw .transport(URLError(.cannotWriteToFile))
                }
            }
        }

        func close() {
            state.withLock { state in
                try? state.handle?.close()
                state.handle = nil
            }
        }

        var receiveCount: Int { state.withLock { $0.receiveCount } }
    }
}
