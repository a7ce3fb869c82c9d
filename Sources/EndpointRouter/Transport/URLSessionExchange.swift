import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One exchange on a URLSession task: delivers the task's callbacks into the library's sink and
/// resumes the waiting Swift task exactly once — by completion, failure, a sink refusing the body,
/// or cancellation, whichever comes first.
///
/// On Linux, `URLSessionTask.cancel()`, `resume()` and task creation each wait synchronously for the
/// session's work queue, which a fast transfer can hold for seconds; and a cancel that races the
/// start may never produce a completion callback. So the waiting task is resumed here at once,
/// without waiting for URLSession, and every URLSession call for this exchange runs on its own
/// serial `queue`: off the caller's thread and the cooperative pool, and never `cancel()`
/// concurrently with `resume()` for the same task (which crashes corelibs).
final class URLSessionExchange: Sendable {
    typealias Outcome = Result<ResponseHead, HTTPClientError>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var pending: Outcome?
        var task: URLSessionTask?
        var head: ResponseHead?
        var receivedBytes: Int64 = 0
        var challengedResponse: HTTPURLResponse?
        var finished = false
        /// URLSession was told not to follow a redirect: from then on the task completes by itself
        /// (with the 3xx) and must not be cancelled.
        var redirectDeclined = false
    }

    /// Where every URLSession call for this exchange is made, in order.
    let queue = DispatchQueue(label: "EndpointRouter.URLSessionExchange", target: .global())
    private let sink: any ResponseBodySink
    private let context: CallContext
    private let state = Locked(State())
    /// The size of a file body, for progress: URLSession on Linux does not know it (see
    /// `URLSessionTransport.streamingTask`).
    private let uploadLength: Int64?
    /// The request's method, so that a failure mid-body is judged against the body this response
    /// can have (none for a HEAD, whatever its `Content-Length`).
    private let method: RequestMethod

    init(sink: any ResponseBodySink, context: CallContext, method: RequestMethod, uploadLength: Int64? = nil) {
        self.sink = sink
        self.context = context
        self.method = method
        self.uploadLength = uploadLength
    }

    /// Whether the exchange can still start a task.
    var isOpen: Bool { state.withLock { !$0.finished } }

    /// Stores the continuation; answers at once if the exchange already ended.
    func begin(_ continuation: CheckedContinuation<Outcome, Never>) {
        let pending = state.withLock { state -> Outcome? in
            if state.pending == nil { state.continuation = continuation }
            return state.pending
        }
        if let pending { continuation.resume(returning: pending) }
    }

    /// Ties the task to the exchange; `false` if the exchange already ended (then the task must be
    /// cancelled, not resumed).
    func attach(_ task: URLSessionTask) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            state.task = task
            return true
        }
    }

    /// Ends the exchange with `error` without waiting for URLSession: the task is cancelled on `queue`.
    func fail(_ error: HTTPClientError) {
        finish(.failure(error))
    }

    func receive(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else { return }
        let head = Self.head(of: http)
        deliver { state throws(HTTPClientError) in
            state.head = head
            try sink.receive(head)
        }
    }

    func append(_ data: Data) {
        deliver { state throws(HTTPClientError) in
            state.receivedBytes += Int64(data.count)
            try sink.write(data)
        }
    }

    /// Whether URLSession may be told, now, to stop at a redirect; `false` once the exchange ended.
    ///
    /// On Linux, corelibs traps ("Received callback for HTTP redirection, but we're not waiting for
    /// it") when the redirect decision reaches the task after a `cancel()` stopped it, and it enters
    /// that waiting state on its own queue before the delegate is even called, so no check made here
    /// can tell whether a cancel already slipped in. The two are made exclusive instead: an exchange
    /// that ended has cancelled (or is cancelling) its task, so the decision is never delivered and
    /// the cancel completes the task; an exchange still open marks the redirect declined, after which
    /// ``finish(_:)`` never cancels (the task completes by itself with the 3xx at once).
    func mayDeclineRedirect() -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            state.redirectDeclined = true
            return true
        }
    }

    func didSend(totalBytes: Int64, expectedBytes: Int64) {
        context.reportUpload(sentBytes: totalBytes, totalBytes: expectedBytes > 0 ? expectedBytes : uploadLength)
    }

    /// Keeps the 401 that provoked a challenge, so it can be returned as a response.
    func challenged(by response: URLResponse?) {
        state.withLock { $0.challengedResponse = response as? HTTPURLResponse }
    }

    /// Ends the exchange with the task's outcome, unless it already ended. `response` is the task's
    /// own: on Linux a redirect whose `Location` URLSession cannot parse completes without an error
    /// and without ever delivering the response, which is then only found there.
    func complete(error: (any Error)?, response: URLResponse?) {
        var outcome: Outcome?
        deliver { state throws(HTTPClientError) in
            let challenged = state.challengedResponse
            if challenged == nil, let error {
                let seen = URLSessionFailure(head: state.head, method: method, receivedBytes: state.receivedBytes)
                outcome = .failure(seen.error(for: error))
            } else if challenged == nil, let head = state.head {
                outcome = .success(head)
            } else if let answer = challenged ?? response as? HTTPURLResponse {
                // A challenge declined so it cannot hang (the 401 itself is the answer), or a head
                // the task never handed over.
                let head = Self.head(of: answer)
                try sink.receive(head)
                outcome = .success(head)
            } else {
                outcome = .failure(.invalidResponse)
            }
        }
        if let outcome { finish(outcome) }
    }

    /// Runs `step` with the sink while the exchange is open; a sink error ends the exchange.
    /// The step runs under the lock so that a body piece is never written after the exchange ended.
    private func deliver(_ step: (inout State) throws(HTTPClientError) -> Void) {
        let outcome = state.withLock { state -> Result<Void, HTTPClientError> in
            state.finished ? .success(()) : Result { () throws(HTTPClientError) in try step(&state) }
        }
        if case .failure(let error) = outcome { finish(.failure(error)) }
    }

    private func finish(_ outcome: Outcome) {
        let taken = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, URLSessionTask?)? in
            guard !state.finished else { return nil }
            state.finished = true
            if state.continuation == nil { state.pending = outcome }
            defer {
                state.continuation = nil
                state.task = nil
            }
            // A declined redirect completes the task on its own; a cancel racing that completion
            // inside corelibs is what traps (see `mayDeclineRedirect`).
            return (state.continuation, state.redirectDeclined ? nil : state.task)
        }
        guard let (continuation, task) = taken else { return }
        continuation?.resume(returning: outcome)
        if let task, case .failure = outcome {
            queue.async { task.cancel() }
        }
    }

    /// URLSession folds repeated fields into one value and keeps them in a dictionary, so their
    /// order is lost; they are sorted by name so the same response always reads the same.
    ///
    /// Every response goes through here, so each name is lower-cased once (not twice per
    /// comparison, which made a sort of ten fields allocate about sixty strings) and names and
    /// values are taken as the strings they already are rather than re-interpolated.
    private static func head(of http: HTTPURLResponse) -> ResponseHead {
        var keyed: [(key: String, name: String, value: String)] = []
        keyed.reserveCapacity(http.allHeaderFields.count)
        for (name, value) in http.allHeaderFields {
            let name = name.base as? String ?? "\(name)"
            keyed.append((key: name.lowercased(), name: name, value: value as? String ?? "\(value)"))
        }
        keyed.sort { $0.key < $1.key }
        var fields: [HeaderFields.Field] = []
        fields.reserveCapacity(keyed.count)
        for field in keyed {
            guard field.name.caseInsensitiveEquals("Set-Cookie") else {
                fields.append(HeaderFields.Field(name: field.name, value: field.value))
                continue
            }
            // Each cookie its own field again, in the server's order, so `values(for:)` reads them intact.
            for cookie in SetCookieValues.split(field.value) {
                fields.append(HeaderFields.Field(name: field.name, value: cookie))
            }
        }
        return ResponseHead(statusCode: http.statusCode, headers: HeaderFields(fields), url: http.url)
    }
}
