import Foundation
import Testing

@testable import EndpointRouter

extension Serialized {
    /// The streaming guarantees whose figure is a wall-clock bound (a cancel answered within 500 ms,
    /// an idle stream ended within 3 s). In `Serialized` so CI runs them alone: in the parallel
    /// suite a loaded 2-core machine can hold the test's own thread back past the bound.
    @Suite("Streaming responses: cancel and idle timing", .timeLimit(.minutes(1)))
    struct ResponseStreamTimingTests {
        @Test func cancellingTheConsumingTaskThrowsCancelledAndClosesTheExchange() async throws {
            let transport = ScriptedStreamTransport { _, _ in [.piece("data: one\n\n"), .pause(.seconds(30))] }
            let endpoint = ResponseStreamTests.endpoint(transport)
            let consumer = Task { () -> HTTPClientError? in
                do {
                    for try await _ in endpoint.events() {}
                    return nil
                } catch let error as HTTPClientError {
                    return error
                } catch {
                    return nil
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            let cancelledAt = ContinuousClock.now
            consumer.cancel()
            #expect(await consumer.value == .cancelled)
            #expect(ContinuousClock.now - cancelledAt < .milliseconds(500))
            try await ResponseStreamTests().waitUntil { transport.stopped == 1 }
        }

        @Test func anIdleStreamTimesOutButASlowConsumerDoesNotCountAsIdle() async throws {
            let idle = ScriptedStreamTransport { _, _ in [.piece("data: one\n\n"), .pause(.seconds(30))] }
            let start = ContinuousClock.now
            var events = 0
            do {
                for try await _ in ResponseStreamTests.endpoint(idle).events(limits: StreamLimits(idleTimeout: 0.3)) { events += 1 }
                Issue.record("expected .timedOut")
            } catch {
                #expect(error == .timedOut)
            }
            #expect(events == 1)
            #expect(ContinuousClock.now - start < .seconds(3))

            // The consumer sleeps longer than the idle timeout while the transport waits for demand.
            let busy = ScriptedStreamTransport { _, _ in (0..<40).map { _ in .piece("data: \(String(repeating: "y", count: 200))\n\n") } }
            var slow = 0
            for try await _ in ResponseStreamTests.endpoint(busy).events(limits: StreamLimits(bufferSize: 1024, idleTimeout: 0.2)) {
                slow += 1
                if slow % 10 == 0 { try await Task.sleep(for: .milliseconds(400)) }
            }
            #expect(slow == 40)
        }
    }
}
