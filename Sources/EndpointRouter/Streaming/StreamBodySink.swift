import Foundation

/// The sink of one streaming exchange: a bounded buffer between the transport, which runs in a task
/// of its own, and the consumer's `for await` loop.
///
/// The transport side writes pieces and, if it can, waits for demand; the consumer side awaits the
/// head, then takes pieces. Either side ending ends both: the consumer closing (leaving its loop,
/// being cancelled, an idle or total timeout) cancels the exchange's task, which makes the transport
/// close the connection; the transport ending hands its outcome to the consumer after the pieces
/// still buffered.
final class StreamBodySink: ResponseBodySink, Sendable {
    private struct State {
        var head: HTTPResponseHead?
        var headWaiter: UnsafeContinuation<Void, Never>?
        var pieces: [Data] = []
        var firstPiece = 0
        var buffered = 0
        /// How the stream ended, once it did; pieces still buffered are delivered before it.
        var end: Result<Void, HTTPClientError>?
        var readerWaiter: UnsafeContinuation<Void, Never>?
        var demandWaiter: UnsafeContinuation<Void, Never>?
        var totalBytes: Int64 = 0
        var lastByte = ContinuousClock.now
        /// The transport waits for the consumer: no byte is expected, so the idle clock stands still.
        var waitingForDemand = false
        var exchange: Task<Void, Never>?
        var watchdog: Task<Void, Never>?
    }

    /// Bytes read ahead of the consumer at most (plus the one piece in hand).
    let capacity: Int
    private let state: Locked<State>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Locked(State())
    }

    // MARK: The transport's side

    func receive(_ head: HTTPResponseHead) throws(HTTPClientError) {
        let waiter = try state.withLock { state throws(HTTPClientError) -> UnsafeContinuation<Void, Never>? in
            if case .failure(let error) = state.end { throw error }
            state.head = head
            state.lastByte = .now
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        guard !bytes.isEmpty else { return }
        try keep(Data(bytes))
    }

    func write(_ data: Data) throws(HTTPClientError) {
        guard !data.isEmpty else { return }
        try keep(data)
    }

    private func keep(_ piece: Data) throws(HTTPClientError) {
        let (waiter, overflow) = try state.withLock { state throws(HTTPClientError) -> (UnsafeContinuation<Void, Never>?, Bool) in
            if case .failure(let error) = state.end { throw error }
            // Only a transport that never waits for demand gets here with a full buffer.
            if state.buffered >= capacity {
                return (nil, true)
            }
            state.pieces.append(piece)
            state.buffered += piece.count
            state.totalBytes += Int64(piece.count)
            state.lastByte = .now
            defer { state.readerWaiter = nil }
            return (state.readerWaiter, false)
        }
        if overflow {
            let error = HTTPClientError.responseTooLarge(limit: capacity)
            end(with: .failure(error))
            throw error
        }
        waiter?.resume()
    }

    func waitForDemand() async throws(HTTPClientError) {
        while true {
            if let error = state.withLock({ state -> HTTPClientError? in
                if case .failure(let error) = state.end { return error }
                return nil
            }) {
                throw error
            }
            if Task.isCancelled { throw .cancelled }
            let hasRoom = state.withLock { $0.buffered < capacity }
            if hasRoom { return }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                    let waits = state.withLock { state -> Bool in
                        guard state.end == nil, state.buffered >= capacity, state.demandWaiter == nil else { return false }
                        state.demandWaiter = continuation
                        state.waitingForDemand = true
                        return true
                    }
                    if !waits { continuation.resume() }
                }
            } onCancel: {
                state.withLock { state in
                    defer { state.demandWaiter = nil }
                    return state.demandWaiter
                }?.resume()
            }
        }
    }

    /// The exchange's task ended: the transport returned `outcome`. A head it returned without
    /// handing it to ``receive(_:)`` counts as received.
    func exchangeEnded(_ outcome: Result<HTTPResponseHead, HTTPClientError>) {
        switch outcome {
        case .success(let head):
            let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                if state.head == nil { state.head = head }
                defer { state.headWaiter = nil }
                return state.headWaiter
            }
            waiter?.resume()
            end(with: .success(()))
        case .failure(let error):
            end(with: .failure(error))
        }
        state.withLock { $0.exchange = nil }
    }

    // MARK: The consumer's side

    /// Starts `transport` on `request` in a task of its own, which the stream owns from now on.
    func start(_ request: HTTPRequest, on transport: any HTTPTransport, context: RequestContext) {
        let exchange = Task {
            do throws(HTTPClientError) {
                let head = try await transport.send(request, context: context, sink: self)
                self.exchangeEnded(.success(head))
            } catch {
                self.exchangeEnded(.failure(error))
            }
        }
        let alreadyEnded = state.withLock { state -> Bool in
            guard state.end == nil else { return true }
            state.exchange = exchange
            return false
        }
        if alreadyEnded { exchange.cancel() }
    }

    /// Waits for the response head.
    ///
    /// - Throws: what ended the exchange before a head arrived; `.cancelled` when the waiting task
    ///   is cancelled (the exchange is then cancelled too).
    func head() async throws(HTTPClientError) -> HTTPResponseHead {
        while true {
            let known = state.withLock { state -> Result<HTTPResponseHead, HTTPClientError>? in
                if let head = state.head { return .success(head) }
                if case .failure(let error) = state.end { return .failure(error) }
                if state.end != nil { return .failure(.invalidResponse) }
                return nil
            }
            if let known { return try known.get() }
            try await park(until: .head)
        }
    }

    /// The next piece of the body, in order; `nil` once the body ended.
    ///
    /// - Throws: what ended the stream (after every piece received before it); `.cancelled` when
    ///   the consuming task is cancelled, which also ends the exchange.
    func next() async throws(HTTPClientError) -> Data? {
        while true {
            let taken = state.withLock { state -> (Result<Data?, HTTPClientError>, UnsafeContinuation<Void, Never>?)? in
                if state.firstPiece < state.pieces.count {
                    // The slot is emptied as the piece is taken, and taken slots are dropped once they
                    // are half the queue: a producer that stays ahead never lets the queue drain, and
                    // taken pieces kept in it grew memory by every byte the consumer read.
                    let piece = state.pieces[state.firstPiece]
                    state.pieces[state.firstPiece] = Data()
                    state.firstPiece += 1
                    if state.firstPiece == state.pieces.count {
                        state.pieces.removeAll(keepingCapacity: true)
                        state.firstPiece = 0
                    } else if state.firstPiece >= 64, state.firstPiece * 2 >= state.pieces.count {
                        state.pieces.removeFirst(state.firstPiece)
                        state.firstPiece = 0
                    }
                    state.buffered -= piece.count
                    var demand: UnsafeContinuation<Void, Never>?
                    if state.buffered < capacity, let waiter = state.demandWaiter {
                        demand = waiter
                        state.demandWaiter = nil
                        state.waitingForDemand = false
                        state.lastByte = .now
                    }
                    return (.success(piece), demand)
                }
                switch state.end {
                case .success: return (.success(nil), nil)
                case .failure(let error): return (.failure(error), nil)
                case nil: return nil
                }
            }
            if let (outcome, demand) = taken {
                demand?.resume()
                return try outcome.get()
            }
            try await park(until: .piece)
        }
    }

    /// What the consumer waits for.
    private enum Arrival { case head, piece }

    /// Suspends the consumer until the transport's side delivers `arrival` or ends, unless it already
    /// did. Cancelling the consuming task closes the stream, and with it the exchange.
    private func park(until arrival: Arrival) async throws(HTTPClientError) {
        if Task.isCancelled {
            close(.cancelled)
            throw .cancelled
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.end == nil else { return false }
                    switch arrival {
                    case .head:
                        guard state.head == nil else { return false }
                        state.headWaiter = continuation
                    case .piece:
                        guard state.firstPiece >= state.pieces.count else { return false }
                        state.readerWaiter = continuation
                    }
                    return true
                }
                if !waits { continuation.resume() }
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
    var queuedSlots: Int { state.withLock { $0.pieces.count } }

    /// The head, once it arrived.
    var receivedHead: HTTPResponseHead? { state.withLock { $0.head } }

    /// Body bytes received so far.
    var totalBytes: Int64 { state.withLock { $0.totalBytes } }

    /// Ends the stream with `error` unless it already ended, and cancels the exchange, so the
    /// transport closes the connection. Buffered pieces are dropped (the consumer is gone) unless
    /// `keepingBuffered`, when the consumer still gets them before the error (a timeout: what arrived
    /// in time is delivered).
    func close(_ error: HTTPClientError, keepingBuffered: Bool = false) {
        let exchange = state.withLock { state -> Task<Void, Never>? in
            if !keepingBuffered {
                state.pieces = []
                state.firstPiece = 0
                state.buffered = 0
            }
            defer { state.exchange = nil }
            return state.exchange
        }
        end(with: .failure(error))
        exchange?.cancel()
    }

    /// Ends the stream with `.timedOut` when no byte arrives for `idle` (while the transport is not
    /// waiting for the consumer), or at `deadline`.
    func watch(idle: Duration?, deadline: ContinuousClock.Instant?) {
        guard idle != nil || deadline != nil else { return }
        let watchdog = Task { [weak self] in
            while let self {
                let wake = self.state.withLock { state -> ContinuousClock.Instant? in
                    guard state.end == nil else { return nil }
                    let quiet = idle.map { state.waitingForDemand ? ContinuousClock.now + $0 : state.lastByte + $0 }
                    switch (quiet, deadline) {
                    case (let quiet?, let deadline?): return min(quiet, deadline)
                    case (let quiet?, nil): return quiet
                    case (nil, let deadline?): return deadline
                    case (nil, nil): return nil
                    }
                }
                guard let wake else { return }
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
        let alreadyEnded = state.withLock { state -> Bool in
            guard state.end == nil else { return true }
            state.watchdog = watchdog
            return false
        }
        if alreadyEnded { watchdog.cancel() }
    }

    private func end(with outcome: Result<Void, HTTPClientError>) {
        let waiters = state.withLock { state -> [UnsafeContinuation<Void, Never>]? in
            guard state.end == nil else { return nil }
            state.end = outcome
            state.waitingForDemand = false
            let waiters = [state.headWaiter, state.readerWaiter, state.demandWaiter].compactMap { $0 }
            state.headWaiter = nil
            state.readerWaiter = nil
            state.demandWaiter = nil
            return waiters
        }
        guard let waiters else { return }
        for waiter in waiters { waiter.resume() }
        state.withLock { state in
            defer { state.watchdog = nil }
            return state.watchdog
        }?.cancel()
    }
}
