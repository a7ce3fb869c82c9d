import ClientAttributes
import EndpointRouter
import Foundation
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
///     // One span for the call, and one child span for each request sent, retries and redirects included.
///     var middlewares: [any HTTPMiddleware] { [ClientTracingMiddleware(), RetryMiddleware(), ClientTracingMiddleware()] }
/// }
/// ```
///
/// Each request sent gets a client span of its own, as the conventions ask: the innermost
/// `ClientTracingMiddleware` of a call (the one closest to the transport) makes one for each request
/// that goes on the wire below it — each attempt and each redirect hop the library follows — and
/// injects that span's `traceparent` into that request. A resent request (a retry, a redirect hop)
/// has `http.request.resend_count`. It does so through ``CallContext/exchangeMiddleware``, which
/// the library runs around each request it hands to the transport.
///
/// Any `ClientTracingMiddleware` above the innermost makes one span for its whole pass: listed
/// first, the whole call, waits between retries included. Listed both first and last, as above, the
/// spans of the requests sent are children of the call's span (a span is the current one in the
/// task-local `InstrumentationContext` while its request goes on). Listed once, the spans of the
/// requests sent are children of the caller's current context (the span of the server request
/// being handled, say), or each starts a trace of its own when there is none.
///
/// Attributes: `http.request.method`, `server.address`, `server.port`, `url.scheme`, `url.full`
/// with every query value replaced by `<redacted>` and no user information, `http.response.status_code`,
/// `error.type` (the status as text for a 4xx or 5xx, otherwise the error's
/// ``HTTPClientError/caseName``) and `endpointrouter.endpoint` (``CallContext/endpointName``, which
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
    /// span when the call (or its stream) ends; each further request sent below gets a span of its own.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        let tracer = tracer ?? InstrumentationSystem.tracer
        let parent = InstrumentationContext.current ?? .topLevel
        let resends = context.attempt - 1
        let span = Self.startSpan(for: request, context: context, resendCount: resends, tracer: tracer, parent: parent)
        var request = request
        tracer.inject(span.context, into: &request.headers, using: HeaderInjector())
        let sent = request
        // The pass's span stands for the first request sent below it; an innermost pass's
        // `SentRequestTracing` gives each further one (a redirect hop, a retry below) its own.
        let requests = SentRequests(first: span)
        var inner = context
        inner.exchangeMiddleware = SentRequestTracing(tracer: tracer, parent: parent, resends: resends, requests: requests)
        let outcome = await InstrumentationContext.withValue(span.context) { () async -> Result<IncomingResponse, HTTPClientError> in
            do throws(HTTPClientError) {
                return .success(try await next(sent, inner))
            } catch {
                return .failure(error)
            }
        }
        // The outcome belongs to the request sent last; the spans before it were ended as the next went out.
        let last = requests.current
        let deadline = context.deadline
        switch outcome {
        case .success(let response):
            Self.record(response.statusCode, on: last)
            guard response.isStreaming else {
                last.end()
                return response
            }
            context.onStreamEnd { summary in
                if let error = summary.error { Self.fail(last, with: error, deadline: deadline) }
                last.end()
            }
            return response
        case .failure(let error):
            Self.fail(last, with: error, deadline: deadline)
            last.end()
            throw error
        }
    }

    static func startSpan(
        for request: OutgoingRequest, context: CallContext, resendCount: Int, tracer: any Tracer, parent: InstrumentationContext
    ) -> any Span {
        let attributes = ClientAttributes(request)
        let span = tracer.startSpan(attributes.method, context: parent, ofKind: .client)
        span.updateAttributes { span in
            span["http.request.method"] = SpanAttribute.string(attributes.method)
            if let address = attributes.serverAddress { span["server.address"] = SpanAttribute.string(address) }
            if let port = attributes.serverPort { span["server.port"] = SpanAttribute.int64(Int64(port)) }
            if let scheme = attributes.scheme { span["url.scheme"] = SpanAttribute.string(scheme) }
            span["url.full"] = SpanAttribute.string(attributes.fullURL)
            span["endpointrouter.endpoint"] = SpanAttribute.string(context.endpointName)
            if resendCount > 0 { span["http.request.resend_count"] = SpanAttribute.int64(Int64(resendCount)) }
        }
        return span
    }

    static func record(_ statusCode: Int, on span: any Span) {
        span.attributes["http.response.status_code"] = SpanAttribute.int64(Int64(statusCode))
        if let errorType = ClientAttributes.errorType(statusCode: statusCode, error: nil) {
            span.attributes["error.type"] = SpanAttribute.string(errorType)
            span.setStatus(SpanStatus(code: .error))
        }
    }

    /// Records `error` on `span` as the caller saw it: `.timedOut` for a cut by the deadline, and
    /// nothing for the caller's own cancellation (see `ClientAttributes.reported`).
    static func fail(_ span: any Span, with error: HTTPClientError, deadline: ContinuousClock.Instant) {
        guard let error = ClientAttributes.reported(error, deadline: deadline) else { return }
        if let errorType = ClientAttributes.errorType(statusCode: nil, error: error) {
            span.attributes["error.type"] = SpanAttribute.string(errorType)
        }
        span.recordError(TracedError(error))
        span.setStatus(SpanStatus(code: .error))
    }
}

/// The spans of the requests sent below one pass of a ``ClientTracingMiddleware``: the one of the
/// request sent last, and how it ended if it failed (recorded when the next one goes out, since only
/// the pass knows whether a failure was the last).
final class SentRequests: @unchecked Sendable {
    // Safe (`@unchecked Sendable`): every stored property is touched only under `lock`.
    private let lock = NSLock()
    private var span: any Span
    private var sent = 0
    private var failure: HTTPClientError?

    init(first: any Span) {
        span = first
    }

    /// The span of the request sent last (the pass's own before any was sent).
    var current: any Span { lock.withLock { span } }

    /// Counts one more request sent; the span it replaces and how that one failed, or `nil` for the
    /// first request, which takes the pass's span.
    func send() -> (index: Int, replaced: (span: any Span, failure: HTTPClientError?)?) {
        lock.withLock {
            sent += 1
            return (sent - 1, sent == 1 ? nil : (span, failure))
        }
    }

    func start(_ next: any Span) {
        lock.withLock {
            span = next
            failure = nil
        }
    }

    func failed(_ error: HTTPClientError?) {
        lock.withLock { failure = error }
    }
}

/// The ``CallContext/exchangeMiddleware`` of a ``ClientTracingMiddleware`` pass: a span for each
/// request sent after the first (whose span is the pass's), a sibling of the pass's span.
struct SentRequestTracing: HTTPMiddleware {
    let tracer: any Tracer
    let parent: InstrumentationContext
    /// Resends counted above the pass (its attempt number less one).
    let resends: Int
    let requests: SentRequests

    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        let (index, replaced) = requests.send()
        var request = request
        var span = requests.current
        if let replaced {
            if let failure = replaced.failure {
                ClientTracingMiddleware.fail(replaced.span, with: failure, deadline: context.deadline)
            }
            replaced.span.end()
            span = ClientTracingMiddleware.startSpan(
                for: request, context: context, resendCount: resends + index, tracer: tracer, parent: parent)
            requests.start(span)
            tracer.inject(span.context, into: &request.headers, using: HeaderInjector())
        }
        let sent = request
        let outcome = await InstrumentationContext.withValue(span.context) { () async -> Result<IncomingResponse, HTTPClientError> in
            do throws(HTTPClientError) {
                return .success(try await next(sent, context))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let response):
            // A redirect or an answer to retry ends here; the pass records the last one again.
            ClientTracingMiddleware.record(response.statusCode, on: span)
            requests.failed(nil)
            return response
        case .failure(let error):
            requests.failed(error)
            throw error
        }
    }
}

/// Writes a tracer's propagation fields (`traceparent`, `tracestate`, baggage) into request headers,
/// replacing any field of the same name, so a retried request carries its own attempt's context.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HeaderFields) {
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
