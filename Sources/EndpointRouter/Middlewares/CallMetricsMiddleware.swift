import Foundation

/// Reports every call once, when it ends, as a ``CallMetrics``: endpoint, method, start, duration,
/// status or error, attempts, and body bytes sent and received — enough to feed any metrics system.
///
/// ```swift
/// var middlewares: [any HTTPMiddleware] {
///     [CallMetricsMiddleware { metrics in Telemetry.record(metrics) },
///      AuthorizationMiddleware(Self.credentials, host: host),
///      RetryMiddleware()]
/// }
/// ```
///
/// Put it first: it then measures the whole call, every retry and replay below it included (they
/// are counted where the request leaves for the network, so its place among the others does not
/// change ``CallMetrics/attempts``). It keeps no state of its own, so a fresh value per call is fine.
///
/// `report` runs on the task of the call, before the caller gets its result, so keep it short. A
/// call cut off by its deadline or cancelled is reported when the work below the middleware has
/// stopped, which may be just after the caller got its `.timedOut` or `.cancelled`.
public struct CallMetricsMiddleware: HTTPMiddleware {
    private let report: @Sendable (CallMetrics) -> Void

    /// Creates the middleware; `report` receives one ``CallMetrics`` per call.
    public init(report: @escaping @Sendable (CallMetrics) -> Void) {
        self.report = report
    }

    /// Passes `request` on, counting what reaches the network, and reports the outcome.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        let counter = ExchangeCounter()
        var inner = context
        inner.options.exchangeCounters.append(counter)
        let start = Date()
        let began = ContinuousClock.now
        let outcome = await Deadline.capture { () throws(HTTPClientError) in try await next(request, inner) }
        let ended = ContinuousClock.now
        var error: HTTPClientError? = if case .failure(let failure) = outcome { failure } else { nil }
        if error == .cancelled, ended >= context.deadline { error = .timedOut }
        let tally = counter.tally
        let metrics = CallMetrics(
            endpointName: context.endpointName, method: request.method, start: start, duration: ended - began,
            statusCode: try? outcome.get().statusCode, error: error, attempts: tally.attempts,
            bytesSent: tally.bytesSent, bytesReceived: tally.bytesReceived)
        guard case .success(let response) = outcome, response.isStreaming else {
            report(metrics)
            return try outcome.get()
        }
        // A stream is reported once, when its body has ended, with its element count.
        let report = self.report
        context.onStreamEnd { summary in
            var metrics = metrics
            metrics.duration = ContinuousClock.now - began
            metrics.bytesReceived += summary.bytes
            metrics.elements = summary.elements
            metrics.error = summary.error
            report(metrics)
        }
        return try outcome.get()
    }
}
