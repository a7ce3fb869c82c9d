import Foundation

/// What ``CallMetricsMiddleware`` reports about one call, once, when it ends.
///
/// ```swift
/// let metrics = CallMetricsMiddleware { metrics in
///     print(metrics.endpointName, metrics.statusCode ?? -1, metrics.duration, metrics.attempts)
/// }
/// ```
public struct CallMetrics: Sendable, Equatable {
    /// The endpoint's ``CallContext/endpointName``, such as `"FeedAPI.timeline"`; never its
    /// associated values or URL, which may hold secrets.
    public var endpointName: String
    /// The request's method.
    public var method: RequestMethod
    /// When the call reached the middleware.
    public var start: Date
    /// How long the call took below the middleware: every attempt, wait and redirect.
    public var duration: Duration
    /// The final response's status, or `nil` when the call failed without one. A status outside the
    /// endpoint's acceptable range is reported here: the library turns it into
    /// ``HTTPClientError/unacceptableStatusCode(_:)`` after the middlewares.
    public var statusCode: Int?
    /// Why the call failed without a response, or `nil`. A call cut off by its deadline reports
    /// ``HTTPClientError/timedOut``.
    public var error: HTTPClientError?
    /// How many times the request was handed to the network below the middleware: 1 for a plain
    /// call, more with retries or a replay after a credential refresh, 0 when a middleware below
    /// answered without sending (a cache hit). Redirect hops of one attempt do not count.
    public var attempts: Int
    /// Request body bytes sent, all attempts together (headers not counted).
    public var bytesSent: Int64
    /// Response body bytes received, all attempts together, after decompression (headers and
    /// redirect bodies not counted).
    public var bytesReceived: Int64
    /// For a streaming call (`events()`, `lines()`, …): the elements read from its body; `nil` otherwise.
    public var elements: Int?

    /// A short label for a metrics dimension: the status code (`"200"`, `"503"`) or the error's case
    /// (`"timedOut"`, `"transport(-1005)"` with the `URLError` code). Few distinct values, and never
    /// a URL, a body or a secret.
    public var outcome: String {
        if let statusCode { return String(statusCode) }
        guard let error else { return "none" }
        if case .unacceptableStatusCode(let response) = error { return String(response.statusCode) }
        return error.caseName
    }

    /// Creates a report.
    public init(
        endpointName: String, method: RequestMethod, start: Date, duration: Duration, statusCode: Int?,
        error: HTTPClientError?, attempts: Int, bytesSent: Int64, bytesReceived: Int64
    ) {
        self.endpointName = endpointName
        self.method = method
        self.start = start
        self.duration = duration
        self.statusCode = statusCode
        self.error = error
        self.attempts = attempts
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }
}
