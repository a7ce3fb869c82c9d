import Foundation
import Testing

@testable import EndpointRouter

/// What the hot-path work (issue 15) must not change: names, attempts and coders as before, and the
/// deadline still answering the caller on time when a middleware waits on something that never
/// honours cancellation.
@Suite("Hot path contract")
struct HotPathContractTests {
    enum Plain: HTTPClient {
        case todo(id: Int, token: String)
        case list

        var host: String { "https://api.example.com" }
        var endpoint: String { "x" }
        var transport: any HTTPTransport { ClosureTransport { _ in IncomingResponse(statusCode: 200) } }
        var middlewares: [any HTTPMiddleware] { [NameProbe.shared] }
    }

    /// Names itself after another endpoint's default name: the composition must see the real name.
    enum Composed: HTTPClient {
        case only
        var host: String { "https://api.example.com" }
        var endpoint: String { "x" }
        var endpointName: String { "v2/" + Plain.list.endpointName }
        var transport: any HTTPTransport { ClosureTransport { _ in IncomingResponse(statusCode: 200) } }
        var middlewares: [any HTTPMiddleware] { [NameProbe.shared] }
    }

    /// Declares its name; the declaration is read once per call, at the call.
    enum Declared: HTTPClient {
        case only
        static let reads = Locked(0)
        var host: String { "https://api.example.com" }
        var endpoint: String { "x" }
        var endpointName: String {
            Self.reads.withLock { $0 += 1 }
            return "billing.invoice"
        }
        var transport: any HTTPTransport { ClosureTransport { _ in IncomingResponse(statusCode: 200) } }
        var middlewares: [any HTTPMiddleware] { [NameProbe.shared] }
    }

    /// Reads the name twice, as a logger and a metrics middleware would.
    final class NameProbe: HTTPMiddleware {
        static let shared = NameProbe()
        let names = Locked<[String]>([])
        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            let first = context.endpointName
            let second = context.endpointName
            names.withLock { $0.append(first == second ? first : "\(first) then \(second)") }
            return try await next(request, context)
        }
    }

    /// A de-duplicated exchange holds no credential partition of its own: one was made per shared
    /// exchange and never used, each drawing 32 random bytes from the system one at a time
    /// (32,037 `getrandom` calls for 1,000 calls).
    @Test func aSharedExchangeDrawsNoRandomKey() {
        let flight = Flight(onClose: { _ in })
        #expect(!Mirror(reflecting: flight).children.contains { $0.value is CredentialPartition })
    }

    @Test func derivedNamesAreTypeAndCaseWhenRead() async throws {
        _ = try await Plain.todo(id: 4711, token: "secret-token").request(type: EmptyResponse.self).get()
        _ = try await Plain.list.request(type: EmptyResponse.self).get()
        _ = try await Composed.only.request(type: EmptyResponse.self).get()
        let names = NameProbe.shared.names.withLock { $0 }
        #expect(names.contains("Plain.todo"))
        #expect(names.contains("Plain.list"))
        #expect(names.contains("v2/Plain.list"))
        #expect(!names.contains { $0.contains("4711") || $0.contains("secret") || $0.contains("\u{0}") })
        // Read directly, outside a call, the default is still the derived name.
        #expect(Plain.todo(id: 1, token: "t").endpointName == "Plain.todo")
        #expect(Composed.only.endpointName == "v2/Plain.list")
    }

    @Test func aDeclaredNameIsReadOncePerCall() async throws {
        let before = Declared.reads.withLock { $0 }
        _ = try await Declared.only.request(type: EmptyResponse.self).get()
        #expect(Declared.reads.withLock { $0 } - before == 1)
        #expect(NameProbe.shared.names.withLock { $0 }.contains("billing.invoice"))
    }

    @Test func aMiddlewareCalledAgainCountsItsOwnAttempts() async throws {
        let seen = Locked<[String]>([])
        _ = try await TestEndpoint(
            endpoint: "x", transport: ClosureTransport { _ in IncomingResponse(statusCode: 200) },
            middlewares: [
                Serialized.PipelineTests.Repeat(times: 2), Serialized.PipelineTests.Repeat(times: 2),
                Serialized.PipelineTests.Observe(seen: seen, label: "b"),
            ]
        )
        .request(type: EmptyResponse.self).get()
        // The outer retry's second attempt is 2; the inner one retries from there: 2, 3.
        #expect(seen.withLock { $0 } == ["b:TestEndpoint:1", "b:TestEndpoint:2", "b:TestEndpoint:2", "b:TestEndpoint:3"])
    }

    @Test func theDefaultCodersAreSharedPerEndpointType() {
        #expect(Plain.list.decoder === Plain.todo(id: 1, token: "t").decoder)
        #expect(Plain.list.encoder === Plain.todo(id: 1, token: "t").encoder)
        #expect(Plain.list.decoder !== Composed.only.decoder)
        #expect(Plain.list.encoder !== Composed.only.encoder)
    }
}

extension Serialized {
    /// A middleware that waits on a continuation it never lets cancellation resume: the caller must
    /// still get `.timedOut` or `.cancelled` on time, and once the waits end, nothing of the calls is
    /// left (timer entries, operations).
    @Suite("Deadline over an uncancellable wait", .timeLimit(.minutes(1)))
    struct UncancellableWaitTests {
        /// The continuations the middleware is stuck on, resumed only by the test.
        final class Parked: Sendable {
            private let state = Locked<(waiting: [CheckedContinuation<Void, Never>], entered: Int, finished: Int)>(([], 0, 0))

            func park() async {
                state.withLock { $0.entered += 1 }
                await withCheckedContinuation { continuation in state.withLock { $0.waiting.append(continuation) } }
            }

            func releaseAll() {
                let waiting = state.withLock { state in
                    defer { state.waiting = [] }
                    return state.waiting
                }
                for continuation in waiting { continuation.resume() }
            }

            func finishedOne() { state.withLock { $0.finished += 1 } }
            var waiting: Int { state.withLock { $0.waiting.count } }
            var finished: Int { state.withLock { $0.finished } }
            /// Operations that reached the middleware (a call cut before its operation started never does).
            var entered: Int { state.withLock { $0.entered } }
        }

        /// The bound for cooperative code, 50 ms; 500 ms under a sanitizer, as in the fault suite.
        static let late = Duration.milliseconds(ProcessInfo.processInfo.environment["ENDPOINTROUTER_SANITIZER"] == nil ? 50 : 500)

        struct Stuck: HTTPMiddleware {
            let parked: Parked
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                defer { parked.finishedOne() }
                await parked.park()
                return try await next(request, context)
            }
        }

        func endpoint(_ parked: Parked, timeout: TimeInterval = 60) -> TestEndpoint {
            TestEndpoint(
                endpoint: "x", timeout: timeout, transport: ClosureTransport { _ in IncomingResponse(statusCode: 200) },
                middlewares: [Stuck(parked: parked)])
        }

        @Test func theCallerGetsTimedOutOnTime() async {
            let parked = Parked()
            let start = ContinuousClock.now
            let result = await endpoint(parked, timeout: 0.2).request(type: EmptyResponse.self)
            let elapsed = ContinuousClock.now - start
            #expect(result.failure == .timedOut)
            #expect(elapsed >= .milliseconds(200) && elapsed < .milliseconds(200) + Self.late, "\(elapsed)")
            parked.releaseAll()
        }

        @Test func theCallerGetsCancelledOnTime() async {
            let parked = Parked()
            let call = Task { await endpoint(parked).request(type: EmptyResponse.self) }
            while parked.waiting == 0 { try? await Task.sleep(nanoseconds: 1_000_000) }
            let start = ContinuousClock.now
            call.cancel()
            let result = await call.value
            #expect(result.failure == .cancelled)
            #expect(ContinuousClock.now - start < Self.late)
            parked.releaseAll()
        }

        /// 10,000 calls cut off by their deadline (1–20 ms) or by a cancel while the middleware waits;
        /// then the waits end. Every caller got exactly one answer, and afterwards no timer entry and
        /// no operation of those calls is left.
        @Test func tenThousandCutCallsLeaveNothingBehind() async throws {
            let parked = Parked()
            let pendingBefore = DeadlineTimer.shared.pendingCount
            let calls = 10_000
            var answers = 0
            for batch in stride(from: 0, to: calls, by: 500) {
                await withTaskGroup(of: Result<EmptyResponse, HTTPClientError>.self) { group in
                    for index in batch..<min(batch + 500, calls) {
                        if index.isMultiple(of: 2) {
                            group.addTask {
                                await endpoint(parked, timeout: Double(1 + index % 20) / 1000).request(type: EmptyResponse.self)
                            }
                        } else {
                            group.addTask {
                                let call = Task { await endpoint(parked).request(type: EmptyResponse.self) }
                                try? await Task.sleep(nanoseconds: UInt64(index % 5) * 1_000_000)
                                call.cancel()
                                return await call.value
                            }
                        }
                    }
                    for await result in group {
                        answers += 1
                        #expect(result.failure == .timedOut || result.failure == .cancelled)
                    }
                }
            }
            #expect(answers == calls)
            // Every operation is still parked in the middleware (the library cannot end an await
            // that ignores cancellation), but no timer entry is kept for any of them.
            #expect(DeadlineTimer.shared.pendingCount <= pendingBefore)
            #expect(parked.entered > calls / 2, "most operations reached the middleware before being cut off")
            let deadline = ContinuousClock.now + .seconds(30)
            while parked.finished < parked.entered, ContinuousClock.now < deadline {
                parked.releaseAll()
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            // Released, each operation ran to its end: none is left suspended.
            #expect(parked.finished == parked.entered)
            #expect(DeadlineTimer.shared.pendingCount <= pendingBefore)
        }
    }
}
