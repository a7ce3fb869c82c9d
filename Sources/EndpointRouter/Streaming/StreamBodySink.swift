import Foundation

/// The sink of one streaming exchange: a bounded buffer between the transport, which runs in a task
/// of its own, and the consumer's `for await` loop.
///
/// The transport side writes pieces and, if it can, waits for demand; the consumer side awaits the
/// head, then takes pieces. Either side ending ends both: the consumer closing (leaving its loop,
/// being cancelled, an idle or total timeout) cancels the exchange's task, which makes the transport
/// close the connection; the transport ending hands its outcome to the consumer after the pieces
/// still buffered. Every decision is ``StreamSinkState``'s; this class holds it under a lock and
/// carries out its actions outside.
final class StreamBodySink: ResponseBodySink, Sendable {
    typealias Machine = StreamSinkState<UnsafeContinuation<Void, Never>, Task<Void, Never>>

    private let machine: Locked<Machine>
    /// The timeouts on the call's clock when it is not the system's (a test's virtual one),
    /// measured by alarms from the head on; `nil` keeps real time alone.
    private let clockWatch: ClockWatch?
    /// Cancels the alarm set for the next timeout on the call's clock, while one is set.
    private let alarm = Locked<(@Sendable () -> Void)?>(nil)

    init(capacity: Int, watch: ClockWatch? = nil) {
        machine = Locked(Machine(capacity: capacity))
        clockWatch = watch
    }

    // MARK: The transport's side

    func receive(_ head: ResponseHead) throws(HTTPClientError) {
        let clockNow = clockWatch?.clock.now
        let (action, first) = machine.withLock { machine in
            let first = machine.head == nil
            return (machine.headReceived(head, clockNow: clockNow), first)
        }
        // From the head on, as the real watchdog after the head phase; set here, in the transport's
        // task, so it is set before the transport's first pause (on an automatic virtual clock a
        // pause before it would pass at once).
        if first, let clockWatch { setAlarm(clockWatch) }
        try perform(action)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        try write(Data(bytes))
    }

    func write(_ data: Data) throws(HTTPClientError) {
        guard !data.isEmpty else { return }
        let clockNow = clockWatch?.clock.now
        try perform(machine.withLock { $0.pieceReceived(data, clockNow: clockNow) })
    }

    /// Whether the transport may write the next piece now, without waiting.
    func hasRoom() throws(HTTPClientError) -> Bool {
        switch machine.withLock({ $0.demandAsked() }) {
        case .room: return true
        case .wait: return false
        case .failure(let error): throw error
        }
    }

    func waitForDemand() async throws(HTTPClientError) {
        while true {
            let demand = machine.withLock { $0.demandAsked() }
            if case .failure(let error) = demand { throw error }
            if Task.isCancelled { throw .cancelled }
            if demand == .room { return }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { continuation in try? perform(machine.withLock { $0.transportParked(continuation) }) }
            } onCancel: {
                try? perform(machine.withLock { $0.transportCancelled() })
            }
        }
    }

    /// The exchange's task ended: the transport returned `outcome`. A head it returned without
    /// handing it to ``receive(_:)`` counts as received.
    func exchangeEnded(_ outcome: Result<ResponseHead, HTTPClientError>) {
        try? perform(machine.withLock { $0.exchangeEnded(outcome) })
    }

    // MARK: The consumer's side

    /// Starts `transport` on `request` in a task of its own, which the stream owns from now on.
    func start(_ request: OutgoingRequest, on transport: any HTTPTransport, context: CallContext) {
        // Started under the lock, so the transport's first call into the sink (the head) waits until
        // the task is known: an end that call sets off (a timeout on a virtual clock, whose alarm is
        // set at the head and may ring in the transport's first pause) always finds it to cancel.
        let action = machine.withLock { machine in
            machine.exchangeStarted(
                Task {
                    do throws(HTTPClientError) {
                        self.exchangeEnded(.success(try await transport.send(request, context: context, sink: self)))
                    } catch {
                        self.exchangeEnded(.failure(error))
                    }
                })
        }
        try? perform(action)
    }

    /// Waits for the response head.
    ///
    /// - Throws: what ended the exchange before a head arrived; `.cancelled` when the waiting task
    ///   is cancelled (the exchange is then cancelled too).
    func head() async throws(HTTPClientError) -> ResponseHead {
        while true {
            if let known = machine.withLock({ $0.headAsked() }) { return try known.get() }
            try await park(forHead: true)
        }
    }

    /// The next piece of the body, in order; `nil` once the body ended.
    ///
    /// - Throws: what ended the stream (after every piece received before it); `.cancelled` when
    ///   the consuming task is cancelled, which also ends the exchange.
    func next() async throws(HTTPClientError) -> Data? {
        while true {
            let clockNow = clockWatch?.clock.now
            switch machine.withLock({ $0.pieceAsked(clockNow: clockNow) }) {
            case .piece(let piece, let transport):
                transport?.resume()
                return piece
            case .end: return nil
            case .failure(let error): throw error
            case .wait: try await park(forHead: false)
            }
        }
    }

    /// Suspends the consumer until the head or the next piece arrives or the stream ends, unless it
    /// already did. Cancelling the consuming task closes the stream, and with it the exchange.
    private func park(forHead: Bool) async throws(HTTPClientError) {
        if Task.isCancelled {
            close(.cancelled)
            throw .cancelled
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                try? perform(machine.withLock { $0.consumerParked(continuation, forHead: forHead) })
            }
        } onCancel: {
            close(.cancelled)
        }
    }

    /// Up to `limit` bytes of what is left of the body (the rest is dropped), for the preview an
    /// error carries; the exchange is closed afterwards.
    func collect(upTo limit: Int) async -> Data {
        var collected = Data()
        while collected.count < limit {
            guard let piece = try? await next() else { break }
            collected.append(piece.prefix(limit - collected.count))
        }
        close(.cancelled)
        return collected
    }

    /// Slots in the queue, taken ones included: what the queue holds on to (for tests).
    var queuedSlots: Int { machine.withLock { $0.queuedSlots } }

    /// The head, once it arrived.
    var receivedHead: ResponseHead? { machine.withLock { $0.head } }

    /// Body bytes received so far.
    var totalBytes: Int64 { machine.withLock { $0.totalBytes } }

    /// Ends the stream with `error` unless it already ended, and cancels the exchange, so the
    /// transport closes the connection. Buffered pieces are dropped (the consumer is gone) unless
    /// `keepingBuffered`, when the consumer still gets them before the error (a timeout: what arrived
    /// in time is delivered).
    func close(_ error: HTTPClientError, keepingBuffered: Bool = false) {
        try? perform(machine.withLock { $0.closed(error, keepingBuffered: keepingBuffered) })
    }

    /// Ends the stream with `.timedOut` when no byte arrives for `idle` (while the transport is not
    /// waiting for the consumer), or at `deadline`.
    ///
    /// In real time in any case, as the call's deadline timer: on a test's virtual clock too, so that
    /// a clock nobody advances cannot hold a stream for ever. On such a clock the same timeouts are
    /// also measured on it (``clockWatch``, from the head on).
    func watch(idle: Duration?, deadline: ContinuousClock.Instant?) {
        guard idle != nil || deadline != nil else { return }
        let watchdog = Task { [weak self] in
            while let self {
                guard let wake = self.machine.withLock({ $0.wake(idle: idle, deadline: deadline, now: .now) }) else { return }
                if wake <= .now {
                    self.close(.timedOut, keepingBuffered: true)
                    return
                }
                do {
                    try await Task.sleep(until: wake, clock: .continuous)
                } catch {
                    return
                }
            }
        }
        try? perform(machine.withLock { $0.watchdogStarted(watchdog) })
    }

    /// Sets an alarm on `clock` for when the stream times out on it; when it rings after bytes came,
    /// it sets the next one. An alarm never moves the clock, so the watchdog's own waits do not pass
    /// virtual time (a sleep on an automatic virtual clock would).
    private func setAlarm(_ watch: ClockWatch) {
        let now = watch.clock.now
        guard let wake = machine.withLock({ $0.wake(idle: watch.idle, deadline: watch.deadline, now: now, onClock: true) }) else { return }
        if wake <= now {
            close(.timedOut, keepingBuffered: true)
            return
        }
        let cancel = watch.clock.alarm(at: wake) { [weak self] in self?.setAlarm(watch) }
        alarm.withLock { $0 = cancel }
        // Ended meanwhile, before the alarm was stored: the end did not see it, so it goes here.
        if !machine.withLock({ $0.isRunning }) { cancelAlarm() }
    }

    private func cancelAlarm() {
        alarm.withLock { cancel in
            defer { cancel = nil }
            return cancel
        }?()
    }

    /// Carries out what the machine decided, outside the lock.
    private func perform(_ action: Machine.Action) throws(HTTPClientError) {
        switch action {
        case .none: break
        case .resume(let waiter): waiter.resume()
        case .refuse(let error): throw error
        case .end(let waiter, let tasks, let error):
            if clockWatch != nil { cancelAlarm() }
            waiter?.resume()
            for task in tasks { task.cancel() }
            if let error { throw error }
        case .cancel(let task): task.cancel()
        }
    }
}
