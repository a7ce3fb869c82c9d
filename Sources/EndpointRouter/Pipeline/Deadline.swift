import Dispatch
import Foundation

/// The call's total deadline, enforced above the middlewares.
///
/// URLSession's `timeoutInterval` is an idle timeout truncated to whole seconds on Linux, and a
/// middleware may wait or retry, so the library keeps its own clock for the whole call: the
/// operation runs in a task of its own, started on the caller's thread, and the caller gets
/// `.timedOut` at the deadline, or `.cancelled` when its task is cancelled, at once — without
/// waiting for the operation to notice (it is cancelled and its eventual result dropped).
///
/// A call with nothing that could ignore cancellation (no middleware, a ``CuttableTransport``) runs
/// in the caller's task instead, and the deadline ends its exchange (``runInCallerTask(until:cut:_:)``).
enum Deadline {
    /// The longest deadline honoured, so nanosecond arithmetic can never overflow.
    static let maximumSeconds: TimeInterval = 1_000_000_000
    /// The deadline of an endpoint that sets no `timeout`.
    static let defaultSeconds: TimeInterval = 60

    /// The deadline honoured for a requested one: `nil`, NaN, negative or zero fall back to 60 s,
    /// huge values are capped.
    static func seconds(_ requested: TimeInterval?) -> TimeInterval {
        guard let requested, requested.isFinite, requested > 0 else { return defaultSeconds }
        return min(requested, maximumSeconds)
    }

    /// Why `seconds`, a caller's time limit called `name`, cannot be used, or `nil`: the one rule
    /// for every limit in seconds the API takes (an endpoint's `timeout`, ``StreamLimits``' timeouts).
    /// NaN, infinities, zero and negatives are refused with a typed error before anything is sent,
    /// rather than clamped, since each is a mistake the caller should see; huge values are capped by
    /// ``seconds(_:)``.
    static func problem(_ seconds: TimeInterval?, name: String) -> HTTPClientError? {
        guard let seconds, !(seconds > 0 && seconds.isFinite) else { return nil }
        return .encodingFailed("\(name) \(seconds) is not a positive number of seconds; use nil for no limit")
    }

    /// The instant `seconds` from now.
    static func instant(after seconds: TimeInterval?) -> ContinuousClock.Instant {
        ContinuousClock.now + .nanoseconds(Int64(Self.seconds(seconds) * 1_000_000_000))
    }

    /// The instant `seconds` from now on `clock`.
    static func instant(after seconds: TimeInterval?, on clock: any CallClock) -> ContinuousClock.Instant {
        clock.now + .nanoseconds(Int64(Self.seconds(seconds) * 1_000_000_000))
    }

    /// Runs `operation` until `deadline`; see the type's description.
    ///
    /// The operation starts on the caller's thread (`Task.immediate`) and runs there until its first
    /// real suspension, so a call pays no thread hand-off to begin: a pipeline that completes without
    /// suspending (a stub, a cache hit) never leaves the caller's thread. The caller waits on a
    /// continuation that the first of operation, timer and cancellation resumes, so a middleware or
    /// transport that ignores cancellation cannot hold the caller past the deadline once it awaits.
    /// One that blocks its thread without awaiting holds it, as any synchronous code would: that is
    /// outside the contract of ``HTTPMiddleware`` and ``HTTPTransport``.
    ///
    /// `alarm`, when given, sets an alarm on the call's own clock (a test's virtual one) that ends the
    /// call with `.timedOut` as the timer does, and answers what cancels it.
    static func run<T: Sendable>(
        until deadline: ContinuousClock.Instant,
        alarm: ((@escaping @Sendable () -> Void) -> (@Sendable () -> Void)?)? = nil,
        _ operation: @escaping @Sendable () async throws(HTTPClientError) -> T
    ) async -> Result<T, HTTPClientError> {
        if Task.isCancelled { return .failure(.cancelled) }
        let race = Race<T>()
        var cancelAlarm: (@Sendable () -> Void)?
        defer { cancelAlarm?() }
        await withTaskCancellationHandler {
            // Unsafe rather than checked: the race resumes it exactly once by construction, and the
            // checked one costs an allocation per call.
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                race.begin(continuation)
                guard deadline > ContinuousClock.now else {
                    race.finish(.failure(.timedOut))
                    return
                }
                // Set before the operation starts: on a virtual clock its first wait may pass the deadline.
                cancelAlarm = alarm? { race.finish(.failure(.timedOut)) }
                race.attach(startImmediately { race.finish(await capture(operation)) })
                // Armed only if the operation is still running: one that finished on the spot has
                // nothing left to time out.
                guard !race.isFinished else { return }
                // One process-wide timer (DeadlineTimer), not a dispatch source per call: arming
                // and cancelling a source wakes libdispatch's manager thread twice per call. The
                // race cancels its timer entry when it finishes, so the entry never outlives it.
                race.attach(DeadlineTimer.shared.schedule(at: deadline) { race.finish(.failure(.timedOut)) })
            }
        } onCancel: {
            race.finish(.failure(.cancelled))
        }
        return race.result
    }

    /// Runs `operation` in the caller's own task until `deadline`, for a pipeline whose only waits
    /// are exchanges of a ``CuttableTransport``: at the deadline the timer ends the exchange in
    /// flight through `cut`, and the transport ends it at once on cancellation, so the caller is
    /// answered as ``run(until:_:)`` answers it, without a task of its own for the operation.
    ///
    /// Measured (issue 23): ``run(until:_:)``'s task costs a small call on `CurlTransport` one
    /// more thread wake-up, the operation's end resuming its caller on another thread.
    static func runInCallerTask<T>(
        until deadline: ContinuousClock.Instant, cut: DeadlineCut, _ operation: () async throws(HTTPClientError) -> T
    ) async -> Result<T, HTTPClientError> {
        if Task.isCancelled { return .failure(.cancelled) }
        guard deadline > ContinuousClock.now else { return .failure(.timedOut) }
        let timer = DeadlineTimer.shared.schedule(at: deadline) { cut.deadlinePassed() }
        let result = await capture(operation)
        DeadlineTimer.shared.cancel(timer)
        return result
    }

    /// A task that begins on the current thread, where the system has `Task.immediate`.
    ///
    /// Measured (issue 27): a plain `Task` costs every call 4,547 instructions (70,552 → 75,099,
    /// `Benchmarks/instructions`), 0.8 allocations and, natively, 6 to 19 µs of thread hand-off.
    private static func startImmediately(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Task.immediate(operation: operation)
        }
        return Task(operation: operation)
    }

    static func capture<T>(_ operation: () async throws(HTTPClientError) -> T) async -> Result<T, HTTPClientError> {
        do {
            return .success(try await operation())
        } catch {
            return .failure(error)
        }
    }
}

/// The first of operation, timer and cancellation to finish wins; the others are cancelled. The
/// rules are ``DeadlineRace``'s; this class holds it under a lock and carries out its actions.
private final class Race<T: Sendable>: StripeLocked, @unchecked Sendable {
    /// The machine's outcome is a marker and the result it let in first is kept beside it, so that
    /// ``DeadlineRace`` is one concrete type, specialised by the compiler (generic over `T` it cost
    /// 5,124 more instructions per call, +7.5 %), and no object per call carries the result (an
    /// outcome object was one allocation per call: issue 27's A/B, 34 → 36 per call).
    typealias Machine = DeadlineRace<UnsafeContinuation<Void, Never>, Task<Void, Never>, DeadlineTimer.Token, Void>

    struct Guarded {
        var machine = Machine()
        var result: Result<T, HTTPClientError>?
    }

    // Safe (`@unchecked Sendable`): only touched under the object's stripe lock (`withLock`).
    var lockedState = Guarded()

    var isFinished: Bool { withLock { $0.machine.isFinished } }

    /// What the race let in first; read once the waiter was answered. The machine answers the
    /// waiter only after a finish, which stores its result first under the same lock, so the result
    /// is always there by then; `.cancelled` stands in for it rather than a trap the compiler cannot
    /// rule out.
    var result: Result<T, HTTPClientError> { withLock { $0.result } ?? .failure(.cancelled) }

    func begin(_ continuation: UnsafeContinuation<Void, Never>) { perform(withLock { $0.machine.waiterArrived(continuation) }) }

    func attach(_ operation: Task<Void, Never>) { perform(withLock { $0.machine.workStarted(operation) }) }

    func attach(_ timer: DeadlineTimer.Token) { perform(withLock { $0.machine.timerArmed(timer) }) }

    func finish(_ result: Result<T, HTTPClientError>) {
        perform(
            withLock { state in
                if !state.machine.isFinished { state.result = result }
                return state.machine.finished(())
            })
    }

    private func perform(_ action: Machine.Action) {
        switch action {
        case .none:
            break
        case .answer(let continuation, _, let operation, let timer):
            cancel(operation, timer)
            continuation.resume()
        case .cancel(let operation, let timer):
            cancel(operation, timer)
        }
    }

    private func cancel(_ operation: Task<Void, Never>?, _ timer: DeadlineTimer.Token?) {
        if let timer { DeadlineTimer.shared.cancel(timer) }
        operation?.cancel()
    }
}
