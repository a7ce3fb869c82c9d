/// One call's progress deliveries (``ProgressReporter``) as a state machine: each event returns what
/// to do, which the reporter performs outside its lock.
///
/// Generic over the waiter so that every transition is tested without a continuation or a closure
/// (`ProgressDeliveryStateTests`). The states say what the reporter must guarantee: at most one
/// delivery runs at a time, values only move forward, and once the call's wait is over (the last
/// delivery ended, or the deadline passed, or the caller cancelled) no delivery begins again.
struct ProgressDeliveryState<Waiter> {
    enum State {
        /// No delivery runs; `newest` is the last value accepted, against which the next is judged.
        case idle(newest: TransferProgress?)
        /// A delivery runs; it hands over `pending` (the newest value not yet delivered) next.
        case delivering(newest: TransferProgress, pending: TransferProgress?)
        /// The call asked to finish while a delivery ran: reports are dropped, the delivery hands
        /// over `pending` (the last value, when the call completed) and then wakes `waiters`. Once
        /// the wait is over early (deadline, cancellation) `pending` is dropped and no waiter is left.
        case finishing(pending: TransferProgress?, waiters: [Int: Waiter])
        /// No delivery runs and none will begin: the call asked to finish.
        case finished
    }

    /// What the delivery does after its closure returned (or before its first call).
    enum Step {
        /// Calls the closure with this value.
        case deliver(TransferProgress)
        /// Ends; the reporter resumes these waiters.
        case end(resuming: [Waiter])
    }

    private(set) var state = State.idle(newest: nil)

    /// A transport reported `progress`. Returns whether a delivery must be started: only when none
    /// runs and the value moved forward (or first told the total).
    mutating func reported(_ progress: TransferProgress) -> Bool {
        switch state {
        case .idle(let newest):
            guard Self.isForward(progress, from: newest) else { return false }
            state = .delivering(newest: progress, pending: progress)
            return true
        case .delivering(let newest, _):
            guard Self.isForward(progress, from: newest) else { return false }
            state = .delivering(newest: progress, pending: progress)
            return false
        case .finishing, .finished:
            // A transport winding down after the call's end: nobody is listening any more.
            return false
        }
    }

    /// The delivery asks what to do next: deliver the newest pending value, or end.
    mutating func nextStep() -> Step {
        switch state {
        case .delivering(let newest, let pending):
            if let pending {
                state = .delivering(newest: newest, pending: nil)
                return .deliver(pending)
            }
            state = .idle(newest: newest)
            return .end(resuming: [])
        case .finishing(let pending, let waiters):
            if let pending {
                state = .finishing(pending: nil, waiters: waiters)
                return .deliver(pending)
            }
            state = .finished
            return .end(resuming: Array(waiters.values))
        case .idle, .finished:
            // Only a running delivery asks, and only it leaves these states' delivering forms.
            return .end(resuming: [])
        }
    }

    /// The call asks to finish, as `waiter` (known as `id`), keeping the pending value when
    /// `deliveringLast`. Returns `waiter` when it need not wait (no delivery runs), else `nil`: it is
    /// resumed when the delivery ends, or by ``waitEnded(_:)``.
    mutating func finishRequested(deliveringLast: Bool, id: Int, _ waiter: Waiter) -> Waiter? {
        switch state {
        case .idle, .finished:
            state = .finished
            return waiter
        case .delivering(_, let pending):
            state = .finishing(pending: deliveringLast ? pending : nil, waiters: [id: waiter])
            return nil
        case .finishing(let pending, var waiters):
            waiters[id] = waiter
            state = .finishing(pending: deliveringLast ? pending : nil, waiters: waiters)
            return nil
        }
    }

    /// The wait of `id` is over before the delivery ended: the call's deadline passed or its caller
    /// cancelled. Returns the waiter to resume, if it still waits. The value not yet delivered is
    /// dropped, so that no delivery begins after the call returned; the one running goes on.
    mutating func waitEnded(_ id: Int) -> Waiter? {
        guard case .finishing(_, var waiters) = state, let waiter = waiters.removeValue(forKey: id) else { return nil }
        state = .finishing(pending: nil, waiters: waiters)
        return waiter
    }

    /// Forward: more bytes, or as many with news of the total.
    private static func isForward(_ progress: TransferProgress, from previous: TransferProgress?) -> Bool {
        guard let previous else { return true }
        if progress.completedBytes != previous.completedBytes { return progress.completedBytes > previous.completedBytes }
        return progress.expectedBytes != previous.expectedBytes
    }
}
