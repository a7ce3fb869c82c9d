/// Where one libcurl exchange is, and what to do on each event: the decisions of ``CurlExchange``
/// without any I/O, so that every transition can be tested as a table.
///
/// Only the transport's loop thread changes it, so it needs no lock; the shell performs each action
/// it returns. Every path ends in `.finished` exactly once, and every action that resumes the caller
/// also removes the handle first, so no byte reaches the sink after the caller has its outcome.
struct CurlExchangeState<Continuation> {
    /// Whether the body may be written now, or must wait for the sink's demand.
    enum Demand: Equatable {
        /// The sink has room for the next piece.
        case ready
        /// A piece was written and the sink is being asked for room for the next one.
        case asking
        /// A piece arrived while asking: libcurl keeps it and receives nothing more until the answer.
        case paused
    }

    enum State {
        /// Made, not yet taken by the loop.
        case created
        /// Cancelled before the loop took it: it must never reach the network.
        case cancelledBeforeStart(HTTPClientError)
        /// On the network, no response head yet.
        case awaitingHead(Continuation)
        /// The head went to the sink; the body flows.
        case streaming(Continuation, ResponseHead, Demand)
        /// The sink or the request body failed inside a callback; libcurl is told to stop and will
        /// report the transfer done.
        case failing(Continuation, HTTPClientError)
        /// The caller has its outcome and the handle is gone.
        case finished
    }

    enum Action {
        case none
        /// Put the handle on the multi.
        case add
        /// Answer the caller without ever having added the handle.
        case answer(Continuation, Result<ResponseHead, HTTPClientError>)
        /// Take the handle off the multi (closing an unfinished transfer's connection), then answer.
        case removeAndAnswer(Continuation, Result<ResponseHead, HTTPClientError>)
        /// Hand the head to the sink.
        case deliverHead(ResponseHead)
        /// Hand this piece to the sink; then, if `askForDemand`, ask the sink for room for the next.
        case write(askForDemand: Bool)
        /// Tell libcurl to keep the piece and stop receiving (`CURL_WRITEFUNC_PAUSE`).
        case pause
        /// Tell libcurl to stop the transfer with an error (a callback returns a failure).
        case abort
        /// Let libcurl receive again (`curl_easy_pause(CONT)`), which redelivers the piece it kept.
        case unpause
    }

    private(set) var state: State = .created
    /// Whether the sink may make the transport wait (a stream's); sinks that hold a whole body never do.
    let sinkWaits: Bool

    init(sinkWaits: Bool) {
        self.sinkWaits = sinkWaits
    }

    init(_ state: State, sinkWaits: Bool) {
        self.state = state
        self.sinkWaits = sinkWaits
    }

    /// The loop took the exchange, with the caller waiting on `continuation`.
    mutating func start(_ continuation: Continuation) -> Action {
        switch state {
        case .created:
            state = .awaitingHead(continuation)
            return .add
        case .cancelledBeforeStart(let error):
            state = .finished
            return .answer(continuation, .failure(error))
        case .awaitingHead, .streaming, .failing, .finished:
            return .none
        }
    }

    /// The caller cancelled, the deadline passed, the stream's consumer left, or the transport shut down.
    mutating func cancel(_ error: HTTPClientError) -> Action {
        switch state {
        case .created:
            state = .cancelledBeforeStart(error)
            return .none
        case .awaitingHead(let continuation), .streaming(let continuation, _, _):
            state = .finished
            return .removeAndAnswer(continuation, .failure(error))
        case .failing(let continuation, let first):
            state = .finished
            return .removeAndAnswer(continuation, .failure(first))
        case .cancelledBeforeStart, .finished:
            return .none
        }
    }

    /// The final response head was read (not a `1xx`).
    mutating func head(_ head: ResponseHead) -> Action {
        guard case .awaitingHead(let continuation) = state else { return .none }
        state = .streaming(continuation, head, .ready)
        return .deliverHead(head)
    }

    /// A callback failed: the sink refused the head or a piece, or the request body could not be read.
    mutating func fail(_ error: HTTPClientError) -> Action {
        switch state {
        case .awaitingHead(let continuation), .streaming(let continuation, _, _):
            state = .failing(continuation, error)
            return .abort
        case .created, .cancelledBeforeStart, .failing, .finished:
            return .abort
        }
    }

    /// libcurl has a piece of the body.
    mutating func piece() -> Action {
        switch state {
        case .streaming(let continuation, let head, .ready):
            guard sinkWaits else { return .write(askForDemand: false) }
            state = .streaming(continuation, head, .asking)
            return .write(askForDemand: true)
        case .streaming(let continuation, let head, .asking), .streaming(let continuation, let head, .paused):
            state = .streaming(continuation, head, .paused)
            return .pause
        case .created, .cancelledBeforeStart, .awaitingHead, .failing, .finished:
            // A body before its head is not HTTP; one after the end has nobody to go to.
            return .abort
        }
    }

    /// The sink has room again.
    mutating func demand() -> Action {
        guard case .streaming(let continuation, let head, let demand) = state, demand != .ready else { return .none }
        state = .streaming(continuation, head, .ready)
        return demand == .paused ? .unpause : .none
    }

    /// libcurl reports the transfer done: with `failure` as the exchange saw it, or complete.
    mutating func complete(_ failure: HTTPClientError?) -> Action {
        switch state {
        case .awaitingHead(let continuation):
            state = .finished
            return .removeAndAnswer(continuation, .failure(failure ?? .invalidResponse))
        case .streaming(let continuation, let head, _):
            state = .finished
            return .removeAndAnswer(continuation, failure.map { .failure($0) } ?? .success(head))
        case .failing(let continuation, let first):
            state = .finished
            return .removeAndAnswer(continuation, .failure(first))
        case .created, .cancelledBeforeStart, .finished:
            return .none
        }
    }
}
