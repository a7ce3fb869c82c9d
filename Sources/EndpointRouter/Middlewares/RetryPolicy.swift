import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When ``RetryMiddleware`` sends a request again, and how long it waits first.
///
/// ```swift
/// var policy = RetryPolicy()
/// policy.maximumAttempts = 5
/// policy.retryableStatusCodes.remove(500)   // this API's 500s are bugs, not hiccups
/// let retry = RetryMiddleware(policy: policy)
/// ```
///
/// A failed attempt is retried when its method is idempotent (or the endpoint sets
/// ``EndpointOptions/retryable``), attempts remain, and it failed in a way that may pass: a
/// status in ``retryableStatusCodes`` or a transport error in ``retryableErrorCodes``. The wait is
/// the response's `Retry-After` when it has one, otherwise exponential backoff with full jitter:
/// a random duration between zero and `min(maximumDelay, baseDelay × 2^(retry − 1))`, so clients
/// that failed together do not come back together.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included: 3 means at most two retries. Values below 1 count as 1.
    public var maximumAttempts: Int
    /// The backoff ceiling of the first retry; it doubles with each further retry.
    public var baseDelay: Duration
    /// The longest wait: backoff is capped at it, and a `Retry-After` asking for longer ends the
    /// retries at once (waiting less than the server asks would be refused again, waiting longer
    /// than this would ignore your policy).
    public var maximumDelay: Duration
    /// Statuses worth another attempt: 408, 429, 500, 502, 503 and 504 by default.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth another attempt, by `URLError` code (in
    /// ``HTTPClientError/transport(_:)``): connection lost, timed out (one exchange's, not the
    /// call's total ``HTTPClientError/timedOut``), not connected, cannot connect, cannot find host,
    /// DNS lookup failed.
    public var retryableErrorCodes: Set<URLError.Code>
    /// Methods retried without the endpoint's say-so: the idempotent ones, GET, HEAD, PUT, DELETE,
    /// OPTIONS and TRACE. A POST or PATCH is retried only when its endpoint sets
    /// ``EndpointOptions/retryable`` to `true`.
    public var retryableMethods: Set<RequestMethod>

    /// Creates a policy; the defaults suit most APIs.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(30),
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrorCodes: Set<URLError.Code> = [
            .networkConnectionLost, .timedOut, .notConnectedToInternet,
            .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
        ],
        retryableMethods: Set<RequestMethod> = Set(RequestMethod.allCases.filter(\.isIdempotent))
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
        self.retryableMethods = retryableMethods
    }

    /// A random backoff before retry number `retry` (1 for the first), between zero and its ceiling.
    public func backoff(beforeRetry retry: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return backoff(beforeRetry: retry, using: &generator)
    }

    /// ``backoff(beforeRetry:)`` drawing from `generator`.
    public func backoff(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = backoffCeiling(beforeRetry: retry)
        guard ceiling > .zero else { return .zero }
        return .nanoseconds(Int64.random(in: 0...Self.nanoseconds(ceiling), using: &generator))
    }

    /// The largest backoff before retry number `retry`: `min(maximumDelay, baseDelay × 2^(retry − 1))`.
    public func backoffCeiling(beforeRetry retry: Int) -> Duration {
        // `retry - 1` would overflow for `Int.min`: a caller's number, so no arithmetic on it.
        let doublings = retry <= 1 ? 0 : min(retry - 1, 40)
        let base = Self.nanoseconds(baseDelay)
        let cap = Self.nanoseconds(maximumDelay)
        guard base > 0, cap > 0 else { return .zero }
        let (scaled, overflow) = base.multipliedReportingOverflow(by: Int64(1) << doublings)
        return .nanoseconds(overflow ? cap : min(scaled, cap))
    }

    /// How long to wait before attempt `attempt + 1` after `outcome` of attempt `attempt`, or `nil`
    /// when it is not retried for its outcome (the method and the deadline are the middleware's to
    /// check). `now` dates a `Retry-After` given as an HTTP date.
    public func delay(after outcome: Result<IncomingResponse, HTTPClientError>, attempt: Int, now: Date = Date()) -> Duration? {
        guard attempt < maximumAttempts else { return nil }
        switch outcome {
        case .success(let response):
            guard retryableStatusCodes.contains(response.statusCode) else { return nil }
            if let value = response.headers["Retry-After"], let asked = RetryAfter.delay(value, now: now) {
                return asked <= maximumDelay ? asked : nil
            }
            return backoff(beforeRetry: attempt)
        case .failure(.transport(let error)) where retryableErrorCodes.contains(error.code):
            return backoff(beforeRetry: attempt)
        case .failure:
            return nil
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAdding) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || overflowAdding ? .max / 2 : total
    }
}
