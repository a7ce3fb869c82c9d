import EndpointRouter
import Foundation

/// A `CallClock` on which no wait takes real time: a retry's 2 s backoff, a `Retry-After: 120`,
/// a stream's reconnection wait and its idle and total timeouts, a stub's `delayed(by:)` and
/// `.pause(_:)`, a cached response's ageing, a `CredentialStore`'s refresh window.
///
/// Hand it to ``withOverride(_:isolation:operation:)`` with a stub (a virtual clock applies only to
/// simulated transports), then read what was waited:
///
/// ```swift
/// let clock = VirtualClock()
/// let stub = StubTransport().on(.get, "/todos/1", respond: .status(503, headers: ["Retry-After": "2"]))
/// _ = await withOverride(TaskOverride(transport: stub, clock: clock)) {
///     await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [RetryMiddleware()])
/// }
/// #expect(clock.waits == [.seconds(2), .seconds(2)])   // honoured, without waiting
/// ```
///
/// It moves in one of two ways:
/// - ``Advancing/automatically`` (the default): each wait ends at once, the clock moved to its end,
///   so that code that waits runs straight through in the order its waits give. An alarm on the way
///   (a call's deadline, a stream's idle or total timeout) stops the clock at its instant first, so a
///   stream that goes quiet for 30 s under a 2 s idle timeout ends with ``elapsed`` at 2 s.
/// - ``Advancing/manually``: waits end only when the test calls ``advance(by:)``, earliest first,
///   for a test that checks what happens *during* a wait.
///
/// Its instants start at the real instant it was made and move only when it moves, so deadlines
/// made on it compare with its ``now``; ``date`` starts at `date` (now, unless given) the same way.
public final class VirtualClock: CallClock, Sendable {
    /// How a ``VirtualClock`` moves.
    public enum Advancing: Sendable {
        /// Each wait ends at once, moving the clock to its end.
        case automatically
        /// Waits end when the test calls ``VirtualClock/advance(by:)``.
        case manually
    }

    private let origin: ContinuousClock.Instant
    private let originDate: Date
    private typealias State = VirtualClockState<UnsafeContinuation<Void, any Error>, @Sendable () -> Void>
    private let state: Locked<State>

    /// Creates a clock at the current instant, whose ``date`` starts at `date`.
    public init(_ advancing: Advancing = .automatically, date: Date = Date()) {
        origin = .now
        originDate = date
        state = Locked(VirtualClockState(advancesAutomatically: advancing == .automatically))
    }

    /// The clock's instant: when it was made, plus ``elapsed``.
    public var now: ContinuousClock.Instant { origin + elapsed }

    /// The clock's date: the `date` it was made with, plus ``elapsed``.
    public var date: Date { originDate.addingTimeInterval(Self.seconds(elapsed)) }

    /// Virtual time passed since the clock was made.
    public var elapsed: Duration { state.withLock { $0.elapsed } }

    /// Every wait asked of the clock, measured from when it was asked, in the order asked: what a
    /// test checks to see a backoff or a `Retry-After` honoured.
    public var waits: [Duration] { state.withLock { $0.waits } }

    /// Tasks sleeping on the clock now (always 0 when it advances automatically).
    public var pendingSleepers: Int { state.withLock { $0.pendingSleepers } }

    /// Moves the clock `duration` on, waking every sleeper whose instant has come, earliest first.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.elapsed } + max(.zero, duration)
        perform(state.withLock { $0.advanced(to: target) })
        ringDueAlarms()
    }

    /// Runs `action` once the clock reaches `instant` (at once if it has), without moving the clock:
    /// how a call's deadline ends it on this clock.
    public func alarm(at instant: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
        let (id, due) = state.withLock { state in
            let id = state.nextID()
            return (id, state.alarmSet(id: id, at: instant - origin, alarm: action))
        }
        due?()
        return { [state] in state.withLock { $0.alarmCancelled(id: id) } }
    }

    private func ringDueAlarms() {
        for alarm in state.withLock({ $0.dueAlarms() }) { alarm() }
    }

    /// Returns once the clock reaches `instant`: at once when it advances automatically.
    ///
    /// - Throws: `.cancelled` when the task is cancelled, at once.
    public func sleep(until instant: ContinuousClock.Instant) async throws(HTTPClientError) {
        // Advancing automatically, the clock stops at each alarm on the way (see
        // `VirtualClockState.sleepRequested`): the sleeper goes on until its own instant.
        var again = false
        repeat {
            try await sleepOnce(until: instant, again: again)
            again = true
        } while now < instant
    }

    private func sleepOnce(until instant: ContinuousClock.Instant, again: Bool) async throws(HTTPClientError) {
        if Task.isCancelled { throw .cancelled }
        let wake = instant - origin
        let id = state.withLock { $0.nextID() }
        do {
            try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                    let action = state.withLock { $0.sleepRequested(id: id, until: wake, waiter: continuation, again: again) }
                    switch action {
                    case .resumeNow:
                        // The clock may have moved to this sleeper's instant: deadlines passed on the way ring first.
                        ringDueAlarms()
                        continuation.resume()
                    case .cancelNow: continuation.resume(throwing: CancellationError())
                    default: perform(action)
                    }
                }
            } onCancel: {
                perform(state.withLock { $0.cancelled(id: id) })
            }
        } catch {
            throw .cancelled
        }
        // A real suspension, as a real wait has: what the wait set off (a deadline's alarm cancelling
        // this task) takes effect before the sleeper goes on.
        await Task.yield()
        // A sleeper cancelled before it registered was not found by the handler; it ends here.
        if Task.isCancelled { throw .cancelled }
    }

    private func perform(_ action: State.Action) {
        switch action {
        case .none, .resumeNow, .cancelNow: break
        case .resume(let waiters):
            for waiter in waiters { waiter.resume() }
        case .cancel(let waiter): waiter.resume(throwing: CancellationError())
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
