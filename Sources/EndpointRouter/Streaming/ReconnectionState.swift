/// Where one loop over a ``ResponseStream`` is between its connections, and what to do next: the
/// decisions of `StreamReader` under a ``ReconnectPolicy``, without a connection or a clock, so
/// that every transition is tested as a table (`ReconnectionStateTests`).
///
/// The attempt count lives in the states, so two past defects cannot come back: a request that
/// may not be sent again (a POST) has no attempts at all, so no state leads it to reconnect; and
/// only ``delivered()`` (an element framed) resets the count, not a connection opening with a 2xx,
/// so a server that answers and ends at once, again and again, meets the policy's limit.
struct ReconnectionState {
    enum State: Equatable {
        /// Nothing sent yet.
        case initial
        /// A connection is opening: the first (`attempt` 0), or reconnection `attempt` since the
        /// last element.
        case connecting(attempt: Int)
        /// A connection's body is being read.
        case streaming(attempt: Int)
        /// The connection was lost (with `lastError`, or its body ended): reconnection `attempt`
        /// waits its delay.
        case waiting(attempt: Int, lastError: HTTPClientError?)
        /// The sequence ended without an error (pending elements are still handed out).
        case finished
        /// The sequence ends with `error`, once the elements pending are handed out.
        case failed(HTTPClientError)
    }

    /// What the reader does when it has no connection.
    enum Next: Equatable {
        /// Opens the first connection (and starts the stream's total timeout).
        case connect
        /// Waits `delay`, then opens a connection again, resuming where the last one stopped.
        case reconnect(after: Duration)
        /// Ends the sequence.
        case finish
        /// Throws `error` and ends the sequence.
        case fail(HTTPClientError)
    }

    private(set) var state: State
    let policy: ReconnectPolicy
    /// Reconnections allowed in a row: none for a request that may not be sent again on its own.
    let maxAttempts: Int

    /// - Parameters:
    ///   - mayRepeat: whether the request may be sent again on its own (an idempotent method, or an
    ///     endpoint that says it is retryable).
    ///   - failure: why the call could not even be built; the sequence throws it at once.
    init(policy: ReconnectPolicy, mayRepeat: Bool, failure: HTTPClientError? = nil) {
        state = failure.map { .failed($0) } ?? .initial
        self.policy = policy
        maxAttempts = mayRepeat ? policy.maxAttempts : 0
    }

    init(_ state: State, policy: ReconnectPolicy, mayRepeat: Bool) {
        self.init(policy: policy, mayRepeat: mayRepeat)
        self.state = state
    }

    /// The reader has no connection: what next. `requested` is the server's `retry` delay, if it sent one.
    mutating func next(requested: Duration?) -> Next {
        switch state {
        case .initial:
            state = .connecting(attempt: 0)
            return .connect
        case .waiting(let attempt, _):
            state = .connecting(attempt: attempt)
            return .reconnect(after: policy.delay(attempt: attempt, requested: requested))
        case .failed(let error):
            state = .finished
            return .fail(error)
        case .connecting, .streaming, .finished:
            // A connection is open or opening, or the sequence ended: nothing to connect.
            state = .finished
            return .finish
        }
    }

    /// The connection opened with an acceptable status: `.finish` when the server said to stop
    /// reconnecting (`204 No Content` to a reconnecting stream), else `nil` (read its body).
    mutating func opened(status: Int) -> Next? {
        guard case .connecting(let attempt) = state else { return nil }
        if status == 204, policy.maxAttempts > 0 {
            state = .finished
            return .finish
        }
        state = .streaming(attempt: attempt)
        return nil
    }

    /// The connection could not be opened: a reconnection that failed the way a lost connection
    /// does is tried again; the first connection's failure, or any other, ends the sequence.
    mutating func openFailed(_ error: HTTPClientError, pastDeadline: Bool) {
        guard case .connecting(let attempt) = state else { return }
        state = attempt > 0 ? after(attempt: attempt, error: error, pastDeadline: pastDeadline) : .failed(error)
    }

    /// The connection delivered an element: the count of reconnections in a row starts again.
    mutating func delivered() {
        if case .streaming = state { state = .streaming(attempt: 0) }
    }

    /// The connection's body ended, cleanly (`error` nil) or not.
    mutating func bodyEnded(_ error: HTTPClientError?, pastDeadline: Bool) {
        guard case .streaming(let attempt) = state else { return }
        state = after(attempt: attempt, error: error, pastDeadline: pastDeadline)
    }

    /// The sequence ended for a reason of the reader's (a cancelled wait, a resume header that
    /// cannot be sent): nothing more is connected.
    mutating func stopped() {
        state = .finished
    }

    /// After connection `attempt` ended with `error`: wait for the next, or end.
    private func after(attempt: Int, error: HTTPClientError?, pastDeadline: Bool) -> State {
        let curable = error.map { $0.isConnectionLoss || $0 == .timedOut } ?? true
        guard curable, !pastDeadline, attempt < maxAttempts else { return error.map { .failed($0) } ?? .finished }
        return .waiting(attempt: attempt + 1, lastError: error)
    }
}
