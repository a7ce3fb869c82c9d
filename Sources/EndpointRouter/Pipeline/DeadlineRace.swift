/// Who ends a call first — its operation, its deadline or its caller's cancellation — as a state
/// machine: each event returns the action to take, which the caller performs outside its lock.
///
/// Generic over what it holds so that every transition is tested without a task, a timer or a
/// continuation (`DeadlineRaceTests`). The states make the mistakes the race must avoid
/// unrepresentable: once the waiter is answered nothing is left to answer it again, and an outcome
/// that comes before the waiter is kept for it instead of lost.
struct DeadlineRace<Waiter, Work, Timer, Outcome> {
    enum State {
        /// Nobody has finished; what has been attached so far.
        case running(waiter: Waiter?, work: Work?, timer: Timer?)
        /// Finished before the waiter arrived (a caller cancelled on the spot): the outcome waits.
        case finishedEarly(Outcome)
        /// The waiter has its outcome. Whatever arrives now lost the race.
        case answered
    }

    /// What the owner of the machine does after an event, outside its lock.
    enum Action {
        case none
        /// Resumes `waiter` with `outcome`, after cancelling the work and the timer still running.
        case answer(Waiter, Outcome, cancelling: Work?, Timer?)
        /// Cancels what lost the race (or arrived after it ended).
        case cancel(Work?, Timer?)
    }

    private(set) var state = State.running(waiter: nil, work: nil, timer: nil)

    var isFinished: Bool {
        if case .running = state { false } else { true }
    }

    /// The caller began waiting.
    mutating func waiterArrived(_ waiter: Waiter) -> Action {
        switch state {
        case .running(let current, let work, let timer):
            assert(current == nil, "a call has one waiter")
            state = .running(waiter: waiter, work: work, timer: timer)
            return .none
        case .finishedEarly(let outcome):
            state = .answered
            return .answer(waiter, outcome, cancelling: nil, nil)
        case .answered:
            assertionFailure("a call has one waiter")
            return .none
        }
    }

    /// The operation's task was started.
    mutating func workStarted(_ work: Work) -> Action {
        guard case .running(let waiter, _, let timer) = state else { return .cancel(work, nil) }
        state = .running(waiter: waiter, work: work, timer: timer)
        return .none
    }

    /// The deadline's timer was armed.
    mutating func timerArmed(_ timer: Timer) -> Action {
        guard case .running(let waiter, let work, _) = state else { return .cancel(nil, timer) }
        state = .running(waiter: waiter, work: work, timer: timer)
        return .none
    }

    /// The operation ended, the timer fired or the caller cancelled: the first one wins.
    mutating func finished(_ outcome: Outcome) -> Action {
        guard case .running(let waiter, let work, let timer) = state else { return .none }
        guard let waiter else {
            state = .finishedEarly(outcome)
            return .cancel(work, timer)
        }
        state = .answered
        return .answer(waiter, outcome, cancelling: work, timer)
    }
}

extension DeadlineRace.State: Equatable where Waiter: Equatable, Work: Equatable, Timer: Equatable, Outcome: Equatable {}
extension DeadlineRace.Action: Equatable where Waiter: Equatable, Work: Equatable, Timer: Equatable, Outcome: Equatable {}
extension DeadlineRace.State: Sendable where Waiter: Sendable, Work: Sendable, Timer: Sendable, Outcome: Sendable {}
extension DeadlineRace.Action: Sendable where Waiter: Sendable, Work: Sendable, Timer: Sendable, Outcome: Sendable {}
