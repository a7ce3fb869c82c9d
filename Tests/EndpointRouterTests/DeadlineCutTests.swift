import Foundation
import Testing

@testable import EndpointRouter

/// Every event of ``DeadlineCutState`` in every state, without a transport or a timer.
@Suite("Deadline cut: every event in every state")
struct DeadlineCutStateTests {
    typealias Cut = DeadlineCutState<String>

    enum Event: CaseIterable, CustomTestStringConvertible {
        case exchangeStarted, exchangeEnded, deadlinePassed
        var testDescription: String { "\(self)" }
    }

    /// What an event answers: whether an exchange may start, or which exchange to end.
    enum Answer: Equatable {
        case none
        case mayStart(Bool)
        case end(String?)
    }

    static func apply(_ event: Event, to cut: inout Cut) -> Answer {
        switch event {
        case .exchangeStarted: .mayStart(cut.exchangeStarted("second"))
        case .exchangeEnded:
            {
                cut.exchangeEnded()
                return .none
            }()
        case .deadlinePassed: .end(cut.deadlinePassed())
        }
    }

    static func name(_ state: Cut.State) -> String {
        switch state {
        case .between: "between"
        case .exchanging(let exchange): "exchanging \(exchange)"
        case .passed: "passed"
        }
    }

    static func cut(_ name: String) -> Cut {
        var cut = Cut()
        switch name {
        case "exchanging first": _ = cut.exchangeStarted("first")
        case "passed": _ = cut.deadlinePassed()
        default: break
        }
        return cut
    }

    /// For each state, each event's answer and the next state.
    static let table: [String: [Event: (Answer, String)]] = [
        "between": [
            .exchangeStarted: (.mayStart(true), "exchanging second"),
            .exchangeEnded: (.none, "between"),
            .deadlinePassed: (.end(nil), "passed"),
        ],
        "exchanging first": [
            .exchangeStarted: (.mayStart(true), "exchanging second"),
            .exchangeEnded: (.none, "between"),
            .deadlinePassed: (.end("first"), "passed"),
        ],
        "passed": [
            .exchangeStarted: (.mayStart(false), "passed"),
            .exchangeEnded: (.none, "passed"),
            .deadlinePassed: (.end(nil), "passed"),
        ],
    ]

    @Test(arguments: ["between", "exchanging first", "passed"], Event.allCases)
    func transition(_ state: String, _ event: Event) throws {
        let expected = try #require(Self.table[state]?[event])
        var cut = Self.cut(state)
        #expect(Self.name(cut.state) == state)
        #expect(Self.apply(event, to: &cut) == expected.0)
        #expect(Self.name(cut.state) == expected.1)
    }
}

extension Serialized {
    /// ``Deadline/runInCallerTask(until:cut:_:)`` with an exchange that ignores cancellation and ends
    /// only when cut: the caller is answered at its deadline, and the operation runs in its task.
    /// Among the figures: the bounds are wall-clock ones.
    @Suite("Deadline cut: a call in its caller's task")
    struct DeadlineCutTests {
        /// An exchange that waits until it is cut, as a transport's would without a response.
        final class HangingExchange: CuttableExchange, @unchecked Sendable {
            private let lock = NSLock()
            private var waiter: CheckedContinuation<HTTPClientError, Never>?
            private var error: HTTPClientError?

            func wait(registeringWith cut: DeadlineCut) async throws(HTTPClientError) {
                try cut.exchangeStarted(self)
                defer { cut.exchangeEnded() }
                let error = await withCheckedContinuation { continuation in
                    lock.lock()
                    if let error = self.error {
                        lock.unlock()
                        continuation.resume(returning: error)
                    } else {
                        waiter = continuation
                        lock.unlock()
                    }
                }
                throw error
            }

            func cut(_ error: HTTPClientError) {
                lock.lock()
                let waiter = self.waiter
                self.waiter = nil
                if waiter == nil { self.error = error }
                lock.unlock()
                waiter?.resume(returning: error)
            }
        }

        @Test func anExchangeThatOnlyEndsWhenCutIsAnsweredAtTheDeadline() async {
            let clock = ContinuousClock()
            let start = clock.now
            let cut = DeadlineCut()
            let exchange = HangingExchange()
            let result = await Deadline.runInCallerTask(until: start + .milliseconds(200), cut: cut) { () throws(HTTPClientError) in
                try await exchange.wait(registeringWith: cut)
            }
            let elapsed = clock.now - start
            #expect(result.failure == .timedOut)
            #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(2), "\(elapsed)")
        }

        @Test func anExchangeStartingAfterTheDeadlineFailsWithoutWaiting() async {
            let cut = DeadlineCut()
            let clock = ContinuousClock()
            let start = clock.now
            let result = await Deadline.runInCallerTask(until: start + .milliseconds(50), cut: cut) { () throws(HTTPClientError) in
                try? await Task.sleep(for: .milliseconds(150))  // work between two hops outlasting the deadline
                let second = HangingExchange()
                try await second.wait(registeringWith: cut)
            }
            #expect(result.failure == .timedOut)
            #expect(clock.now - start < .seconds(2))
        }

        @Test func theOperationRunsInTheCallersTask() async {
            let caller = withUnsafeCurrentTask { $0?.hashValue }
            let result = await Deadline.runInCallerTask(until: .now + .seconds(5), cut: DeadlineCut()) { () throws(HTTPClientError) in
                withUnsafeCurrentTask { $0?.hashValue }
            }
            #expect(caller != nil)
            #expect((try? result.get()) == caller)
        }

        @Test func aPassedDeadlineOrACancelledCallerNeverRunsTheOperation() async {
            let ran = Locked(false)
            let late = await Deadline.runInCallerTask(until: .now - .milliseconds(1), cut: DeadlineCut()) { () throws(HTTPClientError) in
                ran.withLock { $0 = true }
            }
            #expect(late.failure == .timedOut)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await Deadline.runInCallerTask(until: .now + .seconds(5), cut: DeadlineCut()) { () throws(HTTPClientError) in
                    ran.withLock { $0 = true }
                }
            }
            #expect(await task.value.failure == .cancelled)
            #expect(ran.withLock { $0 } == false)
        }
    }
}

/// Which calls run in their caller's task: only those without middlewares, on a transport the
/// deadline can cut; every other call keeps the race (a middleware may ignore cancellation).
@Suite("Deadline cut: which calls take it")
struct DeadlineCutChoiceTests {
    /// A cuttable transport that answers at once and records whether it was handed a cut.
    struct RecordingCuttableTransport: CuttableTransport {
        let handedCut = Locked<[Bool]>([])
        func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
            -> ResponseHead
        {
            handedCut.withLock { $0.append(context.deadlineCut != nil) }
            let head = ResponseHead(statusCode: 200, headers: HeaderFields())
            try sink.receive(head)
            try sink.write(Data("{}".utf8))
            return head
        }
    }

    struct PassThrough: HTTPMiddleware {
        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            try await next(request, context)
        }
    }

    @Test func onlyACallWithoutMiddlewaresOnACuttableTransportIsHandedACut() async {
        let transport = RecordingCuttableTransport()
        let plain = TestEndpoint(host: "https://api.example.com", endpoint: "a", transport: transport)
        var wrapped = plain
        wrapped.middlewares = [PassThrough()]
        #expect(await plain.request(type: Data.self).failure == nil)
        #expect(await wrapped.request(type: Data.self).failure == nil)
        #expect(await plain.request(type: Data.self, middlewares: [PassThrough()]).failure == nil)
        #expect(transport.handedCut.withLock { $0 } == [true, false, false])
    }
}

/// The per-type memo of which transports are cuttable, against types a program makes at run time.
@Suite("Deadline cut: the memo of cuttable transport types")
struct CuttableTypesTests {
    /// A wrapper that is not cuttable, whatever it wraps.
    struct Wrapper<Inner: HTTPTransport>: HTTPTransport {
        let inner: Inner
        func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
            -> ResponseHead
        { try await inner.send(request, context: context, sink: sink) }
    }

    /// A wrapper that is cuttable, whatever it wraps.
    struct CuttableWrapper<Inner: HTTPTransport>: CuttableTransport {
        let inner: Inner
        func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
            -> ResponseHead
        { try await inner.send(request, context: context, sink: sink) }
    }

    /// `count` transports of as many distinct types, each wrapping the one before, with whether it
    /// is cuttable: a new generic type per level, made at run time.
    static func nested<T: HTTPTransport>(_ transport: T, count: Int, into found: inout [(any HTTPTransport, Bool)]) {
        guard count > 0 else { return }
        if count.isMultiple(of: 2) {
            let next = CuttableWrapper(inner: transport)
            found.append((next, true))
            nested(next, count: count - 1, into: &found)
        } else {
            let next = Wrapper(inner: transport)
            found.append((next, false))
            nested(next, count: count - 1, into: &found)
        }
    }

    @Test func answersStayRightAndTheMemoStaysBoundedWhateverTheTypes() {
        var transports: [(any HTTPTransport, Bool)] = []
        Self.nested(DeadlineCutChoiceTests.RecordingCuttableTransport(), count: 3 * CuttableTypes.limit, into: &transports)
        #expect(Set(transports.map { ObjectIdentifier(type(of: $0.0)) }).count == 3 * CuttableTypes.limit)
        for _ in 0..<2 {
            for (transport, cuttable) in transports {
                #expect(CuttableTypes.contains(transport) == cuttable)
                #expect(CuttableTypes.count <= CuttableTypes.limit)
            }
        }
    }
}
