import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request/response exchange on a URLSession task, completed exactly once.
///
/// It collects the response and body from the delegate callbacks and resumes the waiting Swift task,
/// whether the exchange ends by completion, cancellation or an authentication challenge.
final class Exchange: Sendable {
    typealias Outcome = Result<HTTPTransportResponse, HTTPClientError>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var task: URLSessionTask?
        var response: URLResponse?
        var body = Data()
        var challengedResponse: HTTPURLResponse?
        var cancelled = false
        var finished = false
    }

    private let state = Locked(State())

    /// Stores the continuation; answers at once if the exchange was cancelled before it began.
    func begin(_ continuation: CheckedContinuation<Outcome, Never>) {
        let cancelledEarly = state.withLock { state -> Bool in
            if state.cancelled {
                state.finished = true
                return true
            }
            state.continuation = continuation
            return false
        }
        if cancelledEarly { continuation.resume(returning: .failure(.cancelled)) }
    }

    /// Ties the URLSession task to the exchange; `false` if the exchange already ended, in which case
    /// the task must not be resumed.
    func attach(_ task: URLSessionTask) -> Bool {
        state.withLock { state in
            guard !state.finished, !state.cancelled else { return false }
            state.task = task
            return true
        }
    }

    /// Cancels the exchange from any thread; ends it at once if no task is running yet.
    func cancel() {
        let (task, continuation) = state.withLock { state -> (URLSessionTask?, CheckedContinuation<Outcome, Never>?) in
            state.cancelled = true
            guard state.task == nil, !state.finished else { return (state.task, nil) }
            state.finished = true
            defer { state.continuation = nil }
            return (nil, state.continuation)
        }
        task?.cancel()
        continuation?.resume(returning: .failure(.cancelled))
    }

    func receive(_ response: URLResponse) {
        state.withLock { $0.response = response }
    }

    func append(_ data: Data) {
        state.withLock { $0.body.append(data) }
    }

    /// Keeps the 401 that provoked a challenge, so it can be returned as a response.
    func challenged(by response: URLResponse?) {
        state.withLock { $0.challengedResponse = response as? HTTPURLResponse }
    }

    /// Ends the exchange with the task's outcome.
    func complete(error: (any Error)?) {
        let (continuation, outcome) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Outcome) in
            defer {
                state.finished = true
                state.continuation = nil
            }
            return (state.continuation, Self.outcome(of: state, error: error))
        }
        continuation?.resume(returning: outcome)
    }

    private static func outcome(of state: State, error: (any Error)?) -> Outcome {
        if let challenged = state.challengedResponse, !state.cancelled {
            // The challenge was declined so it cannot hang; the 401 itself is the answer.
            return .success(response(from: challenged, body: state.body))
        }
        if let error {
            if state.cancelled { return .failure(.cancelled) }
            let urlError = error as? URLError
                ?? URLError.described(.unknown, "\(error.localizedDescription)")
            switch urlError.code {
            case .cancelled: return .failure(.cancelled)
            case .timedOut: return .failure(.timedOut)
            default: return .failure(.transport(urlError))
            }
        }
        guard let http = state.response as? HTTPURLResponse else { return .failure(.invalidResponse) }
        return .success(response(from: http, body: state.body))
    }

    private static func response(from http: HTTPURLResponse, body: Data) -> HTTPTransportResponse {
        var headers: [HTTPHeaders.Field] = []
        for (name, value) in http.allHeaderFields {
            headers.append(HTTPHeaders.Field(name: "\(name)", value: "\(value)"))
        }
        headers.sort { $0.name.lowercased() < $1.name.lowercased() }
        return HTTPTransportResponse(statusCode: http.statusCode, headers: HTTPHeaders(headers), body: body, url: http.url)
    }
}

/// The session's delegate: routes callbacks to exchanges, declines URLSession's own redirects and
/// answers HTTP authentication challenges so they never hang.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked<[Int: Exchange]>([:])

    /// HTTP authentication schemes: declined, so a `401` is returned instead of hanging (on Linux a
    /// Basic challenge without a credential never completes).
    private static let httpAuthenticationMethods: Set<String> = [
        NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
        NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
    ]

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        exchange(for: dataTask)?.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // The library follows redirects itself (see RedirectPolicy); the 3xx comes back as the response.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard Self.httpAuthenticationMethods.contains(challenge.protectionSpace.authenticationMethod) else {
            completionHandler(.performDefaultHandling, nil)  // server trust and client certificates: the system decides
            return
        }
        exchange(for: task)?.challenged(by: challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error: error)
    }
}
