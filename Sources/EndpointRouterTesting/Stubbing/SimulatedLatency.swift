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

    /// Sleeps `latency` seconds on `clock`, or until `deadline` when that comes first.
    ///
    /// `clock` is the call's (`CallContext.clock`), the one its `deadline` is on: the library chose
    /// it once for the call, from the transport the call was given, so a stub wrapped in a transport
    /// that is not simulated (a `RecordingTransport`) waits in real time with the call's deadline,
    /// and a stub given directly waits on a test's virtual clock.
    ///
    /// - Throws: `.cancelled` when the task is cancelled; `.timedOut` when the deadline came first.
    static func wait(
        _ latency: TimeInterval, until deadline: ContinuousClock.Instant, on clock: any CallClock
    ) async throws(HTTPClientError) {
        if Task.isCancelled { throw .cancelled }
        guard latency > 0 else { return }
        let answer = clock.now + .seconds(min(latency, longestSeconds))
        try await clock.sleep(until: min(answer, deadline))
        if answer > deadline { throw .timedOut }
    }
}
