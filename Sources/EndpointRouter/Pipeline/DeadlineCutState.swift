/// Whether a call run in its caller's own task (``Deadline/runInCallerTask(until:cut:_:)``) has
/// passed its deadline, and which exchange to end if so, as a state machine: each event returns
/// what to do, which the owner performs outside its lock.
///
/// Generic over the exchange so that every transition is tested without a transport
/// (`DeadlineCutStateTests`). A call has at most one exchange in flight (redirect hops run one
/// after another), and once the deadline has passed no exchange may start: the states say both.
struct DeadlineCutState<Exchange> {
    enum State {
        /// No exchange in flight: before the first, between redirect hops, after the last.
        case between
        /// One exchange in flight, the one to end if the deadline passes.
        case exchanging(Exchange)
        /// The deadline passed. Nothing may start any more.
        case passed
    }

    private(set) var state = State.between

    /// An exchange is about to wait on the network. Returns `false` when the deadline has passed
    /// already: the exchange must not start, and ends with `.timedOut`.
    mutating func exchangeStarted(_ exchange: Exchange) -> Bool {
        switch state {
        case .between, .exchanging:
            // `.exchanging` cannot be seen here (hops run one at a time); the newer one is the one
            // waiting, so it is the one kept.
            state = .exchanging(exchange)
            return true
        case .passed:
            return false
        }
    }

    /// The exchange in flight has its outcome.
    mutating func exchangeEnded() {
        if case .exchanging = state { state = .between }
    }

    /// The deadline passed: returns the exchange to end with `.timedOut`, if one is in flight.
    mutating func deadlinePassed() -> Exchange? {
        defer { state = .passed }
        if case .exchanging(let exchange) = state { return exchange }
        return nil
    }
}
