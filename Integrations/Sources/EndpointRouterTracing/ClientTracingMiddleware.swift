import ClientAttributes
import EndpointRouter
import Tracing

/// Starts a client span for each request that passes through it, with OpenTelemetry's HTTP client
/// attributes, records how it ended, and injects the span's context into the request's headers
/// through the tracer's own propagation: W3C `traceparent` (and `tracestate`) with an OpenTelemetry
/// tracer such as swift-otel's.
///
/// ```swift
/// import EndpointRouter
/// import EndpointRouterTracing
///
/// enum TodoAPI: HTTPClient {
///     case todos
///     var host: String { "https://api.example.com" }
///     var endpoint: String { "todos" }
///     // One span for the call, and one child span for each request sent, retries included.
///     var middlewares: [any HTTPMiddleware] { [ClientTracingMiddleware(), RetryMiddleware(), ClientTracingMiddleware()] }
/// }
/// ```
///
/// Each pass makes one span, so where it stands decides what a span is. Last in the list (closest
/// to the transport) it makes a span for each request sent, which is what the conventions call an
/// HTTP client span: a retry is a span of its own, with `http.request.resend_count`, and carries its
/// own `traceparent`. First, its span covers the whole call, waits between retries included. Listed
/// both first and last, as above, the attempts' spans are children of the call's span (the span is
/// the current one in the task-local `InstrumentationContext` while the request goes on), and the
/// request carries the attempt's context, the last one injected. The parent of the outermost span
/// is the current context of the caller: the span of the server request being handled, say.
///
/// Attributes: `http.request.method`, `server.address`, `server.port`, `url.scheme`, `url.full`
/// with every query value replaced by `<redacted>` and no user information, `http.response.status_code`,
/// `error.type` (the status as text for a 4xx or 5xx, otherwise the error's
/// ``HTTPClientError/caseName``) and `endpointrouter.endpoint` (``RequestContext/endpointName``, which
/// never holds a case's associated values). Nothing is taken from headers or bodies. A failure is
/// recorded as a ``TracedError``, which carries the error's case name and its message (written
/// without secrets) but not the request or response inside some errors, and the span's status is
/// set to error, as for a 4xx or 5xx answer. A call cut by its deadline records `timedOut`, as its
/// caller got. A call its caller ended — a cancelled task, a stream loop left early — is not a
/// failure: its span ends with no `error.type`, no recorded error and its status unset (see the
/// conventions' "Recording errors": the status "MUST be left unset if the instrumented operation has
/// ended without any errors").
///
/// A streaming call's (`events()`, `lines()`, …) span ends when the stream ends, with the error
/// that ended it, if any.
public struct ClientTracingMiddleware: HTTPMiddleware {
    private let tracer: (any Tracer)?

    /// Creates the middleware.
    ///
    /// - Parameter tracer: the tracer to start spans with and to inject their context; `nil` (the
    ///   default) for `InstrumentationSystem.tracer`, read at each call.
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    /// Starts the span, passes the request on with the span's context in its headers, and ends the
    /// span when the call (or its stream) ends.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws(HTTPClientError) -> HTTPResponse {
        let tracer = tracer ?? InstrumentationSystem.tracer
        let attributes = ClientAttributes(request)
        let parent = InstrumentationContext.current ?? .topLevel
        let span = tracer.startSpan(attributes.method, context: parent, ofKind: .client)
        span.updateAttributes { span in
            span["http.request.method"] = SpanAttribute.string(attributes.method)
            if let address = attributes.serverAddress { span["server.address"] = SpanAttribute.string(address) }
            if let port = attributes.serverPort { span["server.port"] = SpanAttribute.int64(Int64(port)) }
            if let scheme = attributes.scheme { span["url.scheme"] = SpanAttribute.string(scheme) }
            span["url.full"] = SpanAttribute.string(attributes.fullURL)
            span["endpointrouter.endpoint"] = SpanAttribute.string(context.endpointName)
            if context.attempt > 1 { span["http.request.resend_count"] = SpanAttribute.int64(Int64(context.attempt - 1)) }
        }
        var request = request
        tracer.inject(span.context, into: &request.headers, using: HeaderInjector())
        let sent = request
        let outcome = await InstrumentationContext.withValue(span.context) { () async -> Result<HTTPResponse, HTTPClientError> in
            do throws(HTTPClientError) {
                return .success(try await next(sent, context))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let response):
            span.attributes["http.response.status_code"] = SpanAttribute.int64(Int64(response.statusCode))
            if let errorType = ClientAttributes.errorType(statusCode: response.statusCode, error: nil) {
                span.attributes["error.type"] = SpanAttribute.string(errorType)
                span.setStatus(SpanStatus(code: .error))
            }
            guard response.isStreaming else {
                span.end()
                return response
            }
            let deadline = context.deadline
            context.onStreamEnd { summary in
                if let error = summary.error { Self.fail(span, with: error, deadline: deadline) }
                span.end()
            }
            return response
        case .failure(let error):
            Self.fail(span, with: error, deadline: context.deadline)
            span.end()
            throw error
        }
    }

    /// Records `error` on `span` as the caller saw it: `.timedOut` for a cut by the deadline, and
    /// nothing for the caller's own cancellation (see `ClientAttributes.reported`).
    private static func fail(_ span: any Span, with error: HTTPClientError, deadline: ContinuousClock.Instant) {
        guard let error = ClientAttributes.reported(error, deadline: deadline) else { return }
        if let errorType = ClientAttributes.errorType(statusCode: nil, error: error) {
            span.attributes["error.type"] = SpanAttribute.string(errorType)
        }
        span.recordError(TracedError(error))
        span.setStatus(SpanStatus(code: .error))
    }
}

/// Writes a tracer's propagation fields (`traceparent`, `tracestate`, baggage) into request headers,
/// replacing any field of the same name, so a retried request carries its own attempt's context.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replace(name: key, value: value)
    }
}

/// The error a ``ClientTracingMiddleware`` records on a span: the ``HTTPClientError``'s case name and
/// message, and nothing else.
///
/// Not the error itself, because some of its cases carry the request and the response (their
/// headers, a body) for the caller to inspect, and an exporter that describes an error by
/// reflection would copy them into the trace. The message is the one ``HTTPClientError`` writes
/// for people, with URLs' query values and user information replaced.
public struct TracedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error's ``HTTPClientError/caseName``, such as `"timedOut"` or `"transport(-1004)"`.
    public let caseName: String
    /// The error's ``HTTPClientError/description``.
    public let description: String

    /// The case name and message of `error`.
    public init(_ error: HTTPClientError) {
        caseName = error.caseName
        description = error.description
    }
}
