import EndpointRouter
import Foundation

/// The wait behind ``StubResponse/delayed(by:)``.
///
/// The library ends every call at its deadline whatever the transport does, so the wait only needs
/// to behave like a slow server: answer after the latency, or give up at the deadline the library
/// handed over in the context rather than sleep on for nothing (and say `.timedOut` when it is the
/// transport itself, not the library, that noticed, as when a test calls the stub directly).
enum SimulatedLatency {
    /// The longest latency honoured, so the instant arithmetic can never overflow (about 31 years).
    static let longestSeconds: TimeInterval = 1_000_000_000

    /// Sleeps `latency` seconds, or until `deadline` when that comes first.
    ///
    /// - Throws: `.cancelled` when the task is cancelled; `.timedOut` when the deadline came first.
    static func wait(_ latency: TimeInterval, until deadline: ContinuousClock.Instant) async throws(HTTPClientError) {
        if Task.isCancelled { throw .cancelled }
        guard latency > 0 else { return }
        // The task's override clock, which is the one the call's deadline was set on: a stub is a
        // simulated transport, so a virtual clock applies to it (see `TaskOverride.clock`).
        let clock = TaskOverride.simulatedClock
        let answer = clock.now + .seconds(min(latency, longestSeconds))
        try await clock.sleep(until: min(answer, deadline))
        if answer > deadline { throw .timedOut }
    }
}
