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
    /// Pieces received and not yet taken, in order.
    struct Buffer {
        private var pieces: [Data] = []
        private var first = 0
        /// Bytes held.
        private(set) var bytes = 0

        var isEmpty: Bool { first == pieces.count }
        /// Slots in the queue, taken ones included: what it holds on to (for tests).
        var slots: Int { pieces.count }

        mutating func append(_ piece: Data) {
            pieces.append(piece)
            bytes += piece.count
        }

        mutating func take() -> Data {
            // The slot is emptied as the piece is taken, and taken slots are dropped once they are
            // half the queue: a producer that stays ahead never lets the queue drain, and taken
            // pieces kept in it grew memory by every byte the consumer read.
            let piece = pieces[first]
            pieces[first] = Data()
            first += 1
            if first == pieces.count {
                pieces.removeAll(keepingCapacity: true)
                first = 0
            } else if first >= 64, first * 2 >= pieces.count {
                pieces.removeFirst(first)
                first = 0
            }
            bytes -= piece.count
            return piece
        }
    }

    /// Who waits while the body flows: never both, since one waits on an empty buffer and the
    /// other on a full one.
    enum Waiting {
        case nobody
        /// The consumer, for the next piece.
        case consumer(Waiter)
        /// The transport, for room in the buffer.
        case transport(Waiter)

        var waiter: Waiter? {
            switch self {
            case .nobody: nil
            case .consumer(let waiter), .transport(let waiter): waiter
            }
        }
    }

    /// The exchange's task and the idle and total timeout's watchdog, while the stream runs.
    struct Tasks {
        var exchange: Work?
        var watchdog: Work?

        var all: [Work] { [exchange, watchdog].compactMap { $0 } }
    }

    enum State {
        /// The request is out; no head yet. The consumer may wait for it.
        case awaitingHead(consumer: Waiter?, Tasks)
        /// The head is in and the body flows through the buffer.
        case streaming(HTTPResponseHead, Buffer, Waiting, Tasks)
        /// The transport returned: the consumer gets what is buffered, then the end of the body.
        case finished(HTTPResponseHead, Buffer)
        /// The stream failed (the transport's error, a refused piece, the consumer closing it, a
        /// timeout): the consumer gets what is buffered, then the error.
        case failed(HTTPResponseHead?, Buffer, HTTPClientError)
    }

    /// What the sink does after an event, outside its lock.
    enum Action {
        case none
        /// Resumes the side that waited.
        case resume(Waiter)
        /// Throws `error` to the transport's call.
        case refuse(HTTPClientError)
        /// The stream ended: resumes the side that waited, cancels the tasks, then throws `refusing`
        /// to the transport's call, if set.
        case end(resuming: Waiter?, cancelling: [Work], refusing: HTTPClientError?)
        /// Cancels a task attached after the end.
        case cancel(Work)
    }

    /// What the consumer gets when it asks for the next piece.
    enum Next {
        /// A piece; `resuming` is the transport, waiting for the room this piece made.
        case piece(Data, resuming: Waiter?)
        /// The body ended.
        case end
        case failure(HTTPClientError)
        /// Nothing yet: the consumer parks.
        case wait
    }

    /// What the transport gets when it asks for room.
    enum Demand: Equatable {
        case room
        /// The buffer is full: the transport parks.
        case wait
        case failure(HTTPClientError)
    }

    private(set) var state: State
    /// Bytes read ahead of the consumer at most (plus the one piece in hand).
    let capacity: Int
    /// Body bytes received.
    private(set) var totalBytes: Int64 = 0
    /// When the transport last delivered (or was let go on to read): the idle timeout counts from it.
    private(set) var lastActivity = ContinuousClock.now

    init(_ state: State = .awaitingHead(consumer: nil, Tasks()), capacity: Int) {
        self.state = state
        self.capacity = max(1, capacity)
    }

    // MARK: The transport's side

    /// The transport has the head.
    mutating func headReceived(_ head: HTTPResponseHead) -> Action {
        switch state {
        case .awaitingHead(let consumer, let tasks):
            state = .streaming(head, Buffer(), .nobody, tasks)
            lastActivity = .now
            return consumer.map { .resume($0) } ?? .none
        case .failed(_, _, let error): return .refuse(error)
        // One head per exchange: a second is not the consumer's to see.
        case .streaming, .finished: return .none
        }
    }

    /// The transport has a piece of the body (not empty).
    mutating func pieceReceived(_ piece: Data) -> Action {
        guard case .streaming(let head, var buffer, let waiting, let tasks) = state else {
            switch state {
            case .awaitingHead(let consumer, let tasks):
                // A body before its head is not HTTP.
                state = .failed(nil, Buffer(), .invalidResponse)
                return .end(resuming: consumer, cancelling: tasks.watchdog.map { [$0] } ?? [], refusing: .invalidResponse)
            case .failed(_, _, let error): return .refuse(error)
            default: return .none
            }
        }
        // Only a transport that never waits for demand gets here with a full buffer.
        guard buffer.bytes < capacity else {
            let error = HTTPClientError.responseTooLarge(limit: capacity)
            state = .failed(head, buffer, error)
            return .end(resuming: waiting.waiter, cancelling: tasks.watchdog.map { [$0] } ?? [], refusing: error)
        }
        emptyState()
        buffer.append(piece)
        totalBytes += Int64(piece.count)
        lastActivity = .now
        guard case .consumer(let consumer) = waiting else {
            state = .streaming(head, buffer, waiting, tasks)
            return .none
        }
        state = .streaming(head, buffer, .nobody, tasks)
        return .resume(consumer)
    }

    /// The transport asks whether it may read the next piece.
    func demandAsked() -> Demand {
        switch state {
        case .awaitingHead, .finished: .room
        case .streaming(_, let buffer, _, _): buffer.bytes < capacity ? .room : .wait
        case .failed(_, _, let error): .failure(error)
        }
    }

    /// The transport parks until there is room; it is resumed at once if there already is.
    mutating func transportParked(_ waiter: Waiter) -> Action {
        guard case .streaming(let head, let buffer, .nobody, let tasks) = state, buffer.bytes >= capacity else {
            return .resume(waiter)
        }
        state = .streaming(head, buffer, .transport(waiter), tasks)
        return .none
    }

    /// The transport's task was cancelled while it waited for room.
    mutating func transportCancelled() -> Action {
        guard case .streaming(let head, let buffer, .transport(let waiter), let tasks) = state else { return .none }
        state = .streaming(head, buffer, .nobody, tasks)
        return .resume(waiter)
    }

    /// The exchange's task ended: the transport returned its head or threw. A head it returned
    /// without handing it over first counts as received.
    mutating func exchangeEnded(_ outcome: Result<HTTPResponseHead, HTTPClientError>) -> Action {
        let (head, buffer, waiter, tasks): (HTTPResponseHead?, Buffer, Waiter?, Tasks)
        switch state {
        case .awaitingHead(let consumer, let running): (head, buffer, waiter, tasks) = (nil, Buffer(), consumer, running)
        case .streaming(let received, let held, let waiting, let running):
            (head, buffer, waiter, tasks) = (received, held, waiting.waiter, running)
        case let ended:
            state = ended
            return .none
        }
        switch outcome {
        case .success(let returned): state = .finished(head ?? returned, buffer)
        case .failure(let error): state = .failed(head, buffer, error)
        }
        // The exchange is the task ending: only the watchdog is left to stop.
        return .end(resuming: waiter, cancelling: tasks.watchdog.map { [$0] } ?? [], refusing: nil)
    }

    // MARK: The consumer's side

    /// The exchange's task was started.
    mutating func exchangeStarted(_ exchange: Work) -> Action {
        attach { $0.exchange = exchange } ?? .cancel(exchange)
    }

    /// The watchdog's task was started.
    mutating func watchdogStarted(_ watchdog: Work) -> Action {
        attach { $0.watchdog = watchdog } ?? .cancel(watchdog)
    }

    /// The consumer asks for the head: `nil` when it must park.
    func headAsked() -> Result<HTTPResponseHead, HTTPClientError>? {
        switch state {
        case .awaitingHead: nil
        case .streaming(let head, _, _, _), .finished(let head, _), .failed(let head?, _, _): .success(head)
        case .failed(nil, _, let error): .failure(error)
        }
    }

    /// The consumer asks for the next piece.
    mutating func pieceAsked() -> Next {
        // `if case`, not `switch state`: a switch over the state it changes works on a copy of it,
        // and the copy's hold on the queue made each take copy the whole queue.
        if case .streaming(let head, var buffer, let waiting, let tasks) = state, !buffer.isEmpty {
            emptyState()
            let piece = buffer.take()
            guard case .transport(let transport) = waiting, buffer.bytes < capacity else {
                state = .streaming(head, buffer, waiting, tasks)
                return .piece(piece, resuming: nil)
            }
            state = .streaming(head, buffer, .nobody, tasks)
            lastActivity = .now
            return .piece(piece, resuming: transport)
        }
        if case .finished(let head, var buffer) = state {
            emptyState()
            defer { state = .finished(head, buffer) }
            return buffer.isEmpty ? .end : .piece(buffer.take(), resuming: nil)
        }
        if case .failed(let head, var buffer, let error) = state {
            emptyState()
            defer { state = .failed(head, buffer, error) }
            return buffer.isEmpty ? .failure(error) : .piece(buffer.take(), resuming: nil)
        }
        return .wait
    }

    /// The consumer parks until the head (`forHead`) or the next piece arrives, or the stream ends;
    /// it is resumed at once if that already happened.
    mutating func consumerParked(_ waiter: Waiter, forHead: Bool) -> Action {
        switch state {
        case .awaitingHead(nil, let tasks):
            state = .awaitingHead(consumer: waiter, tasks)
            return .none
        case .streaming(let head, let buffer, .nobody, let tasks) where !forHead && buffer.isEmpty:
            state = .streaming(head, buffer, .consumer(waiter), tasks)
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
        switch state {
        case .awaitingHead(let consumer, let tasks):
            state = .failed(nil, Buffer(), error)
            return .end(resuming: consumer, cancelling: tasks.all, refusing: nil)
        case .streaming(let head, let buffer, let waiting, let tasks):
            state = .failed(head, keepingBuffered ? buffer : Buffer(), error)
            return .end(resuming: waiting.waiter, cancelling: tasks.all, refusing: nil)
        case .finished(let head, let buffer):
            // The end stays the one that came first; only the memory of a consumer gone is freed.
            state = .finished(head, keepingBuffered ? buffer : Buffer())
            return .none
        case .failed(let head, let buffer, let first):
            state = .failed(head, keepingBuffered ? buffer : Buffer(), first)
            return .none
        }
    }

    // MARK: Queries

    /// The head, once it arrived.
    var head: HTTPResponseHead? { try? headAsked()?.get() }

    /// Slots in the queue, taken ones included (for tests).
    var queuedSlots: Int {
        switch state {
        case .awaitingHead: 0
        case .streaming(_, let buffer, _, _), .finished(_, let buffer), .failed(_, let buffer, _): buffer.slots
        }
    }

    /// When the watchdog must end the stream with `.timedOut`: `idle` after the last byte (while
    /// the transport waits for the consumer no byte is expected, so the idle clock counts from
    /// `now`), or at `deadline`; `nil` once the stream ended.
    func wake(idle: Duration?, deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let quiet: ContinuousClock.Instant?
        switch state {
        case .finished, .failed: return nil
        case .streaming(_, _, .transport, _): quiet = idle.map { now + $0 }
        case .awaitingHead, .streaming: quiet = idle.map { lastActivity + $0 }
        }
        guard let quiet else { return deadline }
        return deadline.map { min(quiet, $0) } ?? quiet
    }

    // MARK: Helpers

    /// Drops the state's hold on its buffer, after a caller bound the buffer to a local `var` with
    /// `guard case` or `if case`: the local is then its one reference and changes in place. A
    /// `switch` over the state kept a copy of it alive, and each piece copied the whole queue (issue
    /// 27's A/B: 8,790 → 15,590 instructions per event with a transport writing ahead, callgrind).
    /// Every caller sets the state again.
    private mutating func emptyState() {
        state = .failed(nil, Buffer(), .cancelled)
    }

    /// Attaches a task while the stream runs; `nil` once it ended (cancel the task).
    private mutating func attach(_ change: (inout Tasks) -> Void) -> Action? {
        switch state {
        case .awaitingHead(let consumer, var tasks):
            change(&tasks)
            state = .awaitingHead(consumer: consumer, tasks)
            return Action.none
        case .streaming(let head, let buffer, let waiting, var tasks):
            change(&tasks)
            state = .streaming(head, buffer, waiting, tasks)
            return Action.none
        case let ended:
            state = ended
            return nil
        }
    }
}
