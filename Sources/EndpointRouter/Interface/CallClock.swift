import Foundation

/// The clock every wait of the library goes through: a retry's backoff and `Retry-After`, a stream's
/// reconnection wait, the deadline's bookkeeping (``CallContext/remainingTime``), a stream's idle and
/// total timeouts (``StreamLimits``), a ``CredentialStore``'s refresh window, a cached response's
/// age, a stub's simulated latency.
///
/// Calls use ``SystemCallClock`` unless a ``TaskOverride`` supplies another one for a simulated
/// transport; `EndpointRouterTesting`'s `VirtualClock` is that other one, so that a test of a 2 s
/// backoff takes no real time. A middleware of your own that waits reads ``CallContext/clock``:
///
/// ```swift
/// struct Pause: HTTPMiddleware {
///     func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
///         try await context.clock.sleep(for: .milliseconds(100))   // virtual under a VirtualClock
///         return try await next(request, context)
///     }
/// }
/// ```
///
/// Instants are `ContinuousClock.Instant`s, as ``CallContext/deadline`` is, so that a clock that is
/// not the system's still hands out instants that compare with the deadline it made.
public protocol CallClock: Sendable {
    /// The current instant on this clock.
    var now: ContinuousClock.Instant { get }
    /// The current wall-clock date on this clock, for what is dated in HTTP: a `Retry-After` date,
    /// a cached response's age.
    var date: Date { get }
    /// Returns once ``now`` has reached `instant`.
    ///
    /// - Throws: ``HTTPClientError/cancelled`` when the task is cancelled, at once.
    func sleep(until instant: ContinuousClock.Instant) async throws(HTTPClientError)
    /// Runs `action` once ``now`` reaches `instant`, without moving the clock itself, and returns
    /// what cancels it; `nil` when the clock keeps no alarms. The library ends a call at its deadline,
    /// and a stream at its idle or total timeout, this way on a clock that is not the system's; the
    /// real timers run in any case.
    func alarm(at instant: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)?
}

extension CallClock {
    /// No alarms: only the library's real deadline timer ends a call on this clock.
    public func alarm(at instant: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
        nil
    }

    /// Returns after `duration` on this clock.
    ///
    /// - Throws: ``HTTPClientError/cancelled`` when the task is cancelled, at once.
    public func sleep(for duration: Duration) async throws(HTTPClientError) {
        try await sleep(until: now + duration)
    }
}

/// The real clock: `ContinuousClock` and `Date()`. Every call uses it unless a ``TaskOverride``
/// supplies another clock for a simulated transport.
///
/// ```swift
/// let clock: any CallClock = SystemCallClock()
/// try await clock.sleep(for: .milliseconds(10))
/// ```
public struct SystemCallClock: CallClock {
    /// The real clock.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { ContinuousClock.now }

    /// `Date()`.
    public var date: Date { Date() }

    /// `Task.sleep(until:)` on the continuous clock, ending with `.cancelled` on cancellation.
    public func sleep(until instant: ContinuousClock.Instant) async throws(HTTPClientError) {
        do {
            try await Task.sleep(until: instant, clock: .continuous)
        } catch {
            throw .cancelled
        }
    }
}
