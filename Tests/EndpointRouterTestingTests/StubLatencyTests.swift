import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// `delayed(by:)` with a nonsensical delay answers at once instead of hanging or failing, and a
/// request made by a task that is already cancelled gets `.cancelled`, not an answer.
@Suite("Stub latency edge cases")
struct StubLatencyTests {
    @Test(arguments: [-1, -.infinity, .infinity, .nan] as [TimeInterval])
    func aNegativeOrNonFiniteDelayAnswersAtOnce(_ seconds: TimeInterval) async throws {
        let stub = StubTransport().on(.get, "/x", respond: .text("now").delayed(by: seconds))
        let started = ContinuousClock.now
        let response = try await stub.exchange(
            try makeRequest(.get, "https://api.example.com/x"),
            context: makeContext(seconds: 5))
        #expect(response.body == Data("now".utf8))
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func anAlreadyCancelledTaskGetsCancelled() async throws {
        let stub = StubTransport().on(.get, "/x", respond: .text("late").delayed(by: 0.01))
        let request = try makeRequest(.get, "https://api.example.com/x")
        let error = await Task { () -> HTTPClientError? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await transportError(stub, request)
        }.value
        #expect(error == .cancelled)
    }
}
