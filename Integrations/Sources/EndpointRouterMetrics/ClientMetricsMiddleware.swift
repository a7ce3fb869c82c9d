import ClientAttributes
import CoreMetrics
import EndpointRouter

/// Records each call into swift-metrics under the names and attributes of OpenTelemetry's HTTP
/// client semantic conventions, so a dashboard built for any other HTTP client reads them as is:
///
/// - `http.client.request.duration`: a histogram (an aggregating `Recorder`) in seconds;
/// - `http.client.request.body.size` and `http.client.response.body.size`: histograms in bytes
///   (the body, after decompression, without headers);
///
/// each with the dimensions `http.request.method`, `server.address`, `server.port`, `url.scheme`,
/// and `http.response.status_code` when an answer came, `error.type` when the call failed or the
/// status is 4xx or 5xx (the status as text, or the error's ``HTTPClientError/caseName``). A call
/// cut by its deadline has `timedOut`, as its caller got; a call its caller cancelled (a cancelled
/// task, a stream loop left early) is measured without `error.type`: it did not fail.
///
/// ```swift
/// import EndpointRouter
/// import EndpointRouterMetrics
///
/// enum TodoAPI: HTTPClient {
///     case todos
///     var host: String { "https://api.example.com" }
///     var endpoint: String { "todos" }
///     var middlewares: [any HTTPMiddleware] { [RetryMiddleware(), ClientMetricsMiddleware()] }
/// }
/// ```
///
/// Where it stands decides what one measurement is. Last in the list (closest to the transport, as
/// above) it measures each request sent, as the conventions define it: a retry is a measurement of
/// its own. First, it measures the whole call, every retry and wait included. Either way a redirect
/// the library follows belongs to the measurement it happened in. A streaming call (`events()`,
/// `lines()`, …) is measured when its stream ends, not when its head arrives.
///
/// Nothing is taken from headers or bodies, and the URL gives only its host and port: no
/// credential can reach a dimension. Values are recorded on the task of the call; the metrics
/// backend (`MetricsSystem.bootstrap`, or `factory`) is one the app chose.
public struct ClientMetricsMiddleware: HTTPMiddleware {
    /// The label of the request duration histogram.
    public static let durationLabel = "http.client.request.duration"
    /// The label of the request body size histogram.
    public static let requestBodySizeLabel = "http.client.request.body.size"
    /// The label of the response body size histogram.
    public static let responseBodySizeLabel = "http.client.response.body.size"

    private let factory: (any MetricsFactory)?

    /// Creates the middleware.
    ///
    /// - Parameter factory: where the values go; `nil` (the default) for the process's
    ///   `MetricsSystem.factory`, read at each call, so bootstrapping after creating the middleware
    ///   is fine.
    public init(factory: (any MetricsFactory)? = nil) {
        self.factory = factory
    }

    /// Passes the request on and records its duration and body sizes when it ends.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        let attributes = ClientAttributes(request)
        let factory = factory ?? MetricsSystem.factory
        // CallMetricsMiddleware already knows when a call (or its stream) has ended and what went out
        // and came in; this middleware only names and files its report.
        let deadline = context.deadline
        let measuring = CallMetricsMiddleware { metrics in
            Self.record(metrics, attributes: attributes, deadline: deadline, into: factory)
        }
        return try await measuring.intercept(request, context: context, next: next)
    }

    private static func record(
        _ metrics: CallMetrics, attributes: ClientAttributes, deadline: ContinuousClock.Instant, into factory: any MetricsFactory
    ) {
        let error = ClientAttributes.reported(metrics.error, deadline: deadline)
        let errorType = ClientAttributes.errorType(statusCode: metrics.statusCode, error: error)
        let dimensions = attributes.pairs(statusCode: metrics.statusCode, errorType: errorType)
        let (seconds, attoseconds) = metrics.duration.components
        Recorder(label: durationLabel, dimensions: dimensions, aggregate: true, factory: factory)
            .record(Double(seconds) + Double(attoseconds) / 1e18)
        Recorder(label: requestBodySizeLabel, dimensions: dimensions, aggregate: true, factory: factory)
            .record(metrics.bytesSent)
        Recorder(label: responseBodySizeLabel, dimensions: dimensions, aggregate: true, factory: factory)
            .record(metrics.bytesReceived)
    }
}
