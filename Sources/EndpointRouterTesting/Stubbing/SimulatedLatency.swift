import Foundation
import EndpointRouter

/// The wait behind ``StubResponse/delayed(by:)``, with the deadline and cancellation behaviour of
/// `URLSessionTransport`, so code under test meets the same errors it would in production.
enum SimulatedLatency {
    /// The longest latency honoured, so `Duration` arithmetic can never overflow (about 31 years).
    static let maximumSeconds: TimeInterval = Deadline.maximumSeconds

    /// Sleeps `latency` seconds, counted from `start`'s request deadline.
    ///
    /// - Throws: `.cancelled` when the task is cancelled; `.timedOut`, once `timeoutInterval` has
    ///   passed since `start`, when the latency reaches beyond it.
    static func wait(
        _ latency: TimeInterval,
        timeoutInterval: TimeInterval,
        since start: ContinuousClock.Instant
    ) async throws(HTTPClientError) {
        if Task.isCancelled { throw .cancelled }
        guard latency > 0 else { return }
        // The same sanitised deadline URLSessionTransport enforces.
        let deadline = start + .seconds(Deadline.seconds(timeoutInterval))
        let answer = ContinuousClock.now + .seconds(min(latency, maximumSeconds))
        do {
            if answer > deadline {
                try await Task.sleep(until: deadline, clock: .continuous)
            } else {
                try await Task.sleep(until: answer, clock: .continuous)
            }
        } catch {
            throw .cancelled
        }
        if answer > deadline { throw .timedOut }
    }
}
