import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's delegate: routes callbacks to exchanges, declines URLSession's own redirects and
/// answers HTTP authentication challenges so they never hang.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// Keyed by the task object, not its `taskIdentifier`: identifiers are per session, and this
    /// delegate also serves the one-request sessions of non-idempotent requests.
    private let exchanges = Locked<[ObjectIdentifier: URLSessionExchange]>([:])

    /// HTTP authentication schemes: declined, so a `401` is returned instead of hanging (on Linux a
    /// Basic challenge without a credential never completes).
    private static let httpAuthenticationMethods: Set<String> = [
        NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
        NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
    ]

    func register(_ exchange: URLSessionExchange, for task: URLSessionTask) {
        exchanges.withLock { $0[ObjectIdentifier(task)] = exchange }
    }

    func unregister(_ task: URLSessionTask) {
        _ = exchanges.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// Exchanges whose task has not completed yet (for tests that count leftovers).
    var activeCount: Int { exchanges.withLock { $0.count } }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[ObjectIdentifier(task)] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(for: dataTask)?.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.append(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        exchange(for: task)?.didSend(totalBytes: totalBytesSent, expectedBytes: totalBytesExpectedToSend)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The library follows redirects itself (RedirectFollower); the 3xx comes back as the response.
        // Not answering at all is deliberate when the exchange already ended: its cancel completes the
        // task, and an answer arriving after that cancel traps corelibs (see `mayDeclineRedirect`).
        // A task without an exchange has completed already (one is registered before `resume()`).
        guard let exchange = exchange(for: task), exchange.mayDeclineRedirect() else { return }
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard Self.httpAuthenticationMethods.contains(challenge.protectionSpace.authenticationMethod) else {
            completionHandler(.performDefaultHandling, nil)  // server trust and client certificates: the system decides
            return
        }
        exchange(for: task)?.challenged(by: challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        exchange?.complete(error: error, response: task.response)
    }
}
