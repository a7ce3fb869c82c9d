import EndpointRouter
import EndpointRouterTesting
import Foundation
import InMemoryTracing
import Tracing

/// An endpoint whose every property is a stored value, answered by a stub transport.
struct Probe: HTTPClient {
    var host = "https://api.example.com:8443"
    var endpoint = "todos"
    var method: RequestMethod = .get
    var headers: [String: String]?
    var redirectPolicy = RedirectPolicy()
    var middlewares: [any HTTPMiddleware] = []
    var transport: any HTTPTransport
    var endpointName: String { "ProbeAPI.todos" }
    var timeout: TimeInterval? = 10
}

/// Answers the stub's requests in turn from a script, repeating its last answer.
actor Script {
    private var answers: [StubResponse]
    init(_ answers: [StubResponse]) { self.answers = answers }
    func next() -> StubResponse { answers.count > 1 ? answers.removeFirst() : answers[0] }
}

extension StubTransport {
    /// A stub answering with `answers` in turn.
    static func answering(_ answers: StubResponse...) -> StubTransport {
        let script = Script(answers)
        return StubTransport { _ in await script.next() }
    }
}

/// A RetryMiddleware that does not wait, so a retried call takes no time.
let immediateRetry = RetryMiddleware(sleep: { _ in })

/// A tracer that keeps its spans in memory, like `InMemoryTracer`, and propagates them the W3C way,
/// as an OpenTelemetry tracer does: a `traceparent` header of version 00, the trace and span IDs in
/// lower-case hex, and the sampled flag.
struct W3CTracer: Tracer {
    let spans = InMemoryTracer(
        idGenerator: InMemoryTracer.IDGenerator(nextTraceID: { randomHex(digits: 32) }, nextSpanID: { randomHex(digits: 16) }))

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        spans.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
    where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject(Self.traceparent(traceID: span.traceID, spanID: span.spanID), forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
    where Carrier == Extract.Carrier {}

    /// The `traceparent` value of a span.
    static func traceparent(traceID: String, spanID: String) -> String {
        "00-\(traceID)-\(spanID)-01"
    }

    var finishedSpans: [FinishedInMemorySpan] { spans.finishedSpans }
    var activeSpans: [InMemorySpan] { spans.activeSpans }
}

/// `digits` random lower-case hexadecimal digits: a W3C trace (32) or span (16) ID.
private func randomHex(digits: Int) -> String {
    String((0..<digits).map { _ in "0123456789abcdef".randomElement() ?? "0" })
}

/// Whether `condition` holds within `seconds`, checked every 10 ms: for what happens after the caller
/// got its result (a span or a metric of a call cut by its deadline or cancelled ends when the work
/// below the middleware has stopped).
func eventually(within seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let end = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now >= end { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}
