extension EndpointOptions {
    /// Whether ``RetryMiddleware`` may send this endpoint's request again: `nil` (the default)
    /// decides by method — idempotent ones only —, `true` allows it for any method (a POST whose
    /// server de-duplicates by an idempotency key), `false` forbids it.
    ///
    /// ```swift
    /// var options: EndpointOptions {
    ///     var options = EndpointOptions()
    ///     if case .submitPayment = self { options.retryable = true }   // carries an Idempotency-Key
    ///     return options
    /// }
    /// ```
    public var retryable: Bool? {
        get { self[RetryableOption.self] }
        set { self[RetryableOption.self] = newValue }
    }
}

private enum RetryableOption: EndpointOptionKey {
    static let defaultValue: Bool? = nil
}

/// Sends a request again after a transient failure, as its ``RetryPolicy`` says: a status such as
/// 503 or 429, or a lost or refused connection.
///
/// ```swift
/// var middlewares: [any HTTPMiddleware] {
///     [AuthorizationMiddleware(Self.credentials, host: host), RetryMiddleware(policy: RetryPolicy(maximumAttempts: 4))]
/// }
/// ```
///
/// It honours `Retry-After` (seconds or an HTTP date) and never waits past the call's deadline:
/// when the wait would end after it, the last response or error is returned at once. Cancelling
/// the calling task ends a wait at once with ``HTTPClientError/cancelled``. It keeps no state
/// between calls, so a fresh value per call is fine.
///
/// Place it after ``AuthorizationMiddleware`` (each attempt then carries the current credential)
/// and before caching or logging that should see each attempt.
public struct RetryMiddleware: HTTPMiddleware {
    /// Waits for a duration, throwing ``HTTPClientError/cancelled`` when the task is cancelled.
    public typealias Sleep = @Sendable (Duration) async throws(HTTPClientError) -> Void

    /// When to retry and how long to wait.
    public let policy: RetryPolicy
    private let sleep: Sleep?

    /// Creates the middleware. It waits on the call's clock (``CallContext/clock``), which a test
    /// makes virtual with a ``TaskOverride``; `sleep` replaces that wait altogether, for a test that
    /// calls the middleware directly and checks the waits without taking them.
    ///
    /// ```swift
    /// actor Waits { var all: [Duration] = []; func add(_ wait: Duration) { all.append(wait) } }
    /// let waits = Waits()
    /// let retry = RetryMiddleware(sleep: { duration in await waits.add(duration) })   // returns at once
    /// ```
    public init(policy: RetryPolicy = RetryPolicy(), sleep: Sleep? = nil) {
        self.policy = policy
        self.sleep = sleep
    }

    /// Sends `request`, then again after each retryable failure while the policy and the deadline allow.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        guard context.options.retryable ?? policy.retryableMethods.contains(request.method) else {
            return try await next(request, context)
        }
        var attempt = 1
        while true {
            let outcome = await Deadline.capture { () throws(HTTPClientError) in try await next(request, context) }
            guard let wait = policy.delay(after: outcome, attempt: attempt, now: context.clock.date), wait < context.remainingTime
            else {
                return try outcome.get()
            }
            if Task.isCancelled { throw .cancelled }
            if let sleep {
                try await sleep(wait)
            } else {
                try await context.clock.sleep(for: wait)
            }
            if Task.isCancelled { throw .cancelled }
            attempt += 1
        }
    }
}
