import Foundation

/// Every state of one streaming exchange, and what to do on each event: the decisions of
/// ``StreamBodySink`` without a task, a lock or a continuation, so that every transition is tested
/// as a table (`StreamSinkStateTests`).
///
/// The states make the orderings the sink must keep unrepresentable to break: a body piece cannot
/// come before the head (it is refused), a head cannot follow an end, one waiter at most is held
/// (the consumer waits only on an empty buffer, the transport only on a full one, so both can never
/// wait at once), and the end keeps nothing to resume or cancel twice. Pieces the transport sends
/// after the end are ignored, or refused with the error that ended the stream.
struct StreamSinkState<Waiter, Work> {
    /// Where the exchange is. The buffer and the tasks lie beside the state, not in its cases:
    /// rebuilding a case with them at every piece cost 5,100 instructions per short stream (issue
    /// 27's A/B, callgrind). What each state allows of them is kept by the events: the buffer is
    /// empty until the head, and the tasks are held only while the stream runs.
    enum State {
        /// The request is out; no head yet. The consumer may wait for it.
        case awaitingHead(consumer: Waiter?)
        /// The head is in and the body flows through the buffer.
        case streaming(ResponseHead, Waiting)
        /// The transport returned: the consumer gets what is buffered, then the end of the body.
        case finished(ResponseHead)
        /// The stream failed (the transport's error, a refused piece, the consumer closing it, a
        /// timeout): the consumer gets what is buffered, then the error.
        case failed(ResponseHead?, HTTPClientError)
    }

    private(set) var state: State
    /// Pieces received and not yet taken, in order: empty until the head.
    private(set) var buffer = Buffer()
    /// The exchange's task and the watchdog while the stream runs; none once it ended.
    private(set) var tasks = Tasks()
    /// Bytes read ahead of the consumer at most (plus the one piece in hand).
    let capacity: Int
    /// Body bytes received.
    private(set) var totalBytes: Int64 = 0
    /// When the transport last delivered (or was let go on to read): the idle timeout counts from it.
    private(set) var lastActivity = ContinuousClock.now
    /// ``lastActivity`` on the call's clock when that is not the system's (a test's virtual one):
    /// the events pass it, read by the sink, so the machine itself reads no clock but the real one.
    private(set) var lastActivityOnClock: ContinuousClock.Instant?

    /// A machine in `state` (a test's starting point; the sink starts awaiting the head), holding
    /// `buffer` once the head is in and `tasks` while the stream runs.
    ///
    /// What `state` cannot hold is dropped, not kept: a buffer before the head, tasks after the end.
    /// A table test hands every starting state the same tasks, and each state keeps what it would
    /// hold in the sink, so no test can start the machine somewhere the sink never is.
    init(_ state: State = .awaitingHead(consumer: nil), buffer: Buffer = Buffer(), tasks: Tasks = Tasks(), capacity: Int) {
        self.state = state
        self.capacity = max(1, capacity)
        switch state {
        case .awaitingHead: self.tasks = tasks
        case .streaming: (self.buffer, self.tasks) = (buffer, tasks)
        case .finished, .failed: self.buffer = buffer
        }
    }

    // MARK: The transport's side

    /// The transport has the head.
    mutating func headReceived(_ head: ResponseHead, clockNow: ContinuousClock.Instant? = nil) -> Action {
        switch state {
        case .awaitingHead(let consumer):
            state = .streaming(head, .nobody)
            (lastActivity, lastActivityOnClock) = (.now, clockNow)
            return consumer.map { .resume($0) } ?? .none
        case .failed(_, let error): return .refuse(error)
        // One head per exchange: a second is not the consumer's to see.
        case .streaming, .finished: return .none
        }
    }

    /// The transport has a piece of the body (not empty).
    mutating func pieceReceived(_ piece: Data, clockNow: ContinuousClock.Instant? = nil) -> Action {
        switch state {
        case .streaming(let head, let waiting):
            // Only a transport that never waits for demand gets here with a full buffer.
            guard buffer.bytes < capacity else { return end(.failed(head, .responseTooLarge(limit: capacity)), by: .refusedPiece) }
            buffer.append(piece)
            totalBytes += Int64(piece.count)
            (lastActivity, lastActivityOnClock) = (.now, clockNow)
            guard case .consumer(let consumer) = waiting else { return .none }
            state = .streaming(head, .nobody)
            return .resume(consumer)
        // A body before its head is not HTTP.
        case .awaitingHead: return end(.failed(nil, .invalidResponse), by: .refusedPiece)
        case .failed(_, let error): return .refuse(error)
        case .finished: return .none
        }
    }

    /// The transport asks whether it may read the next piece.
    func demandAsked() -> Demand {
        switch state {
        case .awaitingHead, .finished: .room
        case .streaming: buffer.bytes < capacity ? .room : .wait
        case .failed(_, let error): .failure(error)
        }
    }

    /// The transport parks until there is room; it is resumed at once if there already is.
    mutating func transportParked(_ waiter: Waiter) -> Action {
        guard case .streaming(let head, .nobody) = state, buffer.bytes >= capacity else { return .resume(waiter) }
        state = .streaming(head, .transport(waiter))
        return .none
    }

    /// The transport's task was cancelled while it waited for room.
    mutating func transportCancelled() -> Action {
        guard case .streaming(let head, .transport(let waiter)) = state else { return .none }
        state = .streaming(head, .nobody)
        return .resume(waiter)
    }

    /// The exchange's task ended: the transport returned its head or threw. A head it returned
    /// without handing it over first counts as received.
    mutating func exchangeEnded(_ outcome: Result<ResponseHead, HTTPClientError>) -> Action {
        let head: ResponseHead?
        switch state {
        case .awaitingHead: head = nil
        case .streaming(let received, _): head = received
        case .finished, .failed: return .none
        }
        switch outcome {
        case .success(let returned): return end(.finished(head ?? returned), by: .exchange)
        case .failure(let error): return end(.failed(head, error), by: .exchange)
        }
    }

    // MARK: The consumer's side

    /// The exchange's task was started.
    mutating func exchangeStarted(_ exchange: Work) -> Action {
        guard isRunning else { return .cancel(exchange) }
        tasks.exchange = exchange
        return .none
    }

    /// The watchdog's task was started.
    mutating func watchdogStarted(_ watchdog: Work) -> Action {
        guard isRunning else { return .cancel(watchdog) }
        tasks.watchdog = watchdog
        return .none
    }

    /// The consumer asks for the head: `nil` when it must park.
    func headAsked() -> Result<ResponseHead, HTTPClientError>? {
        switch state {
        case .awaitingHead: nil
        case .streaming(let head, _), .finished(let head), .failed(let head?, _): .success(head)
        case .failed(nil, let error): .failure(error)
        }
    }

    /// The consumer asks for the next piece.
    mutating func pieceAsked(clockNow: ContinuousClock.Instant? = nil) -> Next {
        switch state {
        case .awaitingHead: return .wait
        case .streaming(let head, let waiting):
            guard !buffer.isEmpty else { return .wait }
            let piece = buffer.take()
            guard case .transport(let transport) = waiting, buffer.bytes < capacity else { return .piece(piece, resuming: nil) }
            state = .streaming(head, .nobody)
            (lastActivity, lastActivityOnClock) = (.now, clockNow)
            return .piece(piece, resuming: transport)
        case .finished: return buffer.isEmpty ? .end : .piece(buffer.take(), resuming: nil)
        case .failed(_, let error): return buffer.isEmpty ? .failure(error) : .piece(buffer.take(), resuming: nil)
        }
    }

    /// The consumer parks until the head (`forHead`) or the next piece arrives, or the stream ends;
    /// it is resumed at once if that already happened.
    mutating func consumerParked(_ waiter: Waiter, forHead: Bool) -> Action {
        switch state {
        case .awaitingHead(nil):
            state = .awaitingHead(consumer: waiter)
            return .none
        case .streaming(let head, .nobody) where !forHead && buffer.isEmpty:
            state = .streaming(head, .consumer(waiter))
            return .none
        default:
            // What it waits for is there, the stream ended, or a waiter is held already (calls for
            // one side never overlap): it asks again rather than wait for nothing.
            return .resume(waiter)
        }
    }

    /// The consumer closed the stream with `error` (it left its loop or was cancelled, a timeout
    /// passed): the exchange is cancelled, so the transport closes the connection. Buffered pieces
    /// are dropped unless `keepingBuffered`, when the consumer still gets them before the error.
    mutating func closed(_ error: HTTPClientError, keepingBuffered: Bool) -> Action {
        if !keepingBuffered { buffer = Buffer() }
        switch state {
        case .awaitingHead: return end(.failed(nil, error), by: .consumer)
        case .streaming(let head, _): return end(.failed(head, error), by: .consumer)
        // The end stays the one that came first; only the memory of a consumer gone is freed.
        case .finished, .failed: return .none
        }
    }

    // MARK: Queries

    /// The head, once it arrived.
    var head: ResponseHead? { try? headAsked()?.get() }

    /// Slots in the queue, taken ones included (for tests).
    var queuedSlots: Int { buffer.slots }

    /// When the watchdog must end the stream with `.timedOut`: `idle` after the last byte (while
    /// the transport waits for the consumer no byte is expected, so the idle clock counts from
    /// `now`), or at `deadline`; `nil` once the stream ended. `onClock`: the instants are on the
    /// call's clock (``lastActivityOnClock``), not in real time.
    func wake(
        idle: Duration?, deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant, onClock: Bool = false
    ) -> ContinuousClock.Instant? {
        let quiet: ContinuousClock.Instant?
        switch state {
        case .finished, .failed: return nil
        case .streaming(_, .transport): quiet = idle.map { now + $0 }
        case .awaitingHead, .streaming: quiet = idle.map { (onClock ? lastActivityOnClock ?? now : lastActivity) + $0 }
        }
        guard let quiet else { return deadline }
        return deadline.map { min(quiet, $0) } ?? quiet
    }

    // MARK: Transitions

    /// Whether the stream runs: tasks attached now are kept, not cancelled.
    var isRunning: Bool {
        switch state {
        case .awaitingHead, .streaming: true
        case .finished, .failed: false
        }
    }

    /// Who ended a running stream.
    private enum Ender {
        /// The consumer closed it: the exchange is cancelled, so the transport closes the connection.
        case consumer
        /// The transport handed over a piece that ends it: its call is refused with the error, which
        /// ends the exchange without cancelling it.
        case refusedPiece
        /// The exchange's task returned: only the watchdog is left to stop.
        case exchange
    }

    /// Ends a running stream in `ended` (`.finished` or `.failed`): the side that waited is resumed
    /// and the tasks still running are let go, to be cancelled.
    private mutating func end(_ ended: State, by ender: Ender) -> Action {
        let waiter: Waiter?
        switch state {
        case .awaitingHead(let consumer): waiter = consumer
        case .streaming(_, let waiting): waiter = waiting.waiter
        case .finished, .failed: waiter = nil
        }
        state = ended
        if ender != .consumer { tasks.exchange = nil }
        let cancelling = tasks.all
        tasks = Tasks()
        guard ender == .refusedPiece, case .failed(_, let error) = ended else {
            return .end(resuming: waiter, cancelling: cancelling, refusing: nil)
        }
        return .end(resuming: waiter, cancelling: cancelling, refusing: error)
    }
}
