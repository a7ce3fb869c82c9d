import EndpointRouter
import EndpointRouterTesting
import EndpointRouterTracing
import InMemoryTracing
import Testing
import Tracing

@Suite("ClientTracingMiddleware: client spans, W3C propagation, errors and streams")
struct TracingMiddlewareTests {
    @Test("Listed first and last around RetryMiddleware: a call span, a child span per attempt, each attempt's traceparent on the wire")
    func callAndAttemptSpans() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.status(503), .json("{}"))
        let probe = Probe(
            middlewares: [ClientTracingMiddleware(tracer: tracer), immediateRetry, ClientTracingMiddleware(tracer: tracer)], transport: stub
        )
        _ = try await probe.request(type: [String: Int].self).get()

        let spans = tracer.finishedSpans
        try #require(spans.count == 3)
        let call = try #require(spans.first { $0.parentSpanID == nil })
        let attempts = spans.filter { $0.parentSpanID == call.spanID }
        try #require(attempts.count == 2, "both attempts are children of the call span")
        #expect(spans.allSatisfy { $0.traceID == call.traceID && $0.kind == .client && $0.operationName == "GET" })

        // The request on the wire carries the attempt's own span, not the call's.
        let sent = stub.capturedRequests.map { $0.headers.values(for: "traceparent") }
        #expect(sent == attempts.map { [W3CTracer.traceparent(traceID: $0.traceID, spanID: $0.spanID)] })

        #expect(attempts[0].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(503))
        #expect(attempts[0].attributes["error.type"]?.toSpanAttribute() == .string("503"))
        #expect(attempts[0].status?.code == .error)
        #expect(attempts[0].attributes["http.request.resend_count"] == nil)
        #expect(attempts[1].attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        #expect(attempts[1].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(attempts[1].status == nil)
        #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(call.attributes["server.address"]?.toSpanAttribute() == .string("api.example.com"))
        #expect(call.attributes["server.port"]?.toSpanAttribute() == .int64(8443))
        #expect(call.attributes["url.full"]?.toSpanAttribute() == .string("https://api.example.com:8443/todos"))
        #expect(call.attributes["endpointrouter.endpoint"]?.toSpanAttribute() == .string("ProbeAPI.todos"))
    }

    @Test("The span's parent is the caller's current span: the server request being handled")
    func parentFromTheCaller() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.json("{}"))
        let probe = Probe(middlewares: [ClientTracingMiddleware(tracer: tracer)], transport: stub)
        let server = tracer.startSpan("GET /orders", context: .topLevel, ofKind: .server)
        _ = await InstrumentationContext.withValue(server.context) {
            await probe.request(type: [String: Int].self)
        }
        server.end()
        let client = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(client.parentSpanID == server.spanID)
        #expect(client.traceID == server.traceID)
        #expect(
            stub.capturedRequests.first?.headers["traceparent"] == W3CTracer.traceparent(traceID: client.traceID, spanID: client.spanID))
    }

    @Test("A failure is recorded as a TracedError with error.type and an error status")
    func failureRecorded() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.urlError(.cannotConnectToHost))
        let probe = Probe(middlewares: [ClientTracingMiddleware(tracer: tracer)], transport: stub)
        let result = await probe.request(type: [String: Int].self)
        #expect(result.failure?.caseName == "transport(-1004)")

        let span = try #require(tracer.finishedSpans.first)
        #expect(span.status?.code == .error)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("transport(-1004)"))
        #expect(span.attributes["http.response.status_code"] == nil)
        try #require(span.errors.count == 1)
        let recorded = try #require(span.errors[0].error as? TracedError)
        #expect(recorded.caseName == "transport(-1004)")
        #expect(recorded.description.contains("-1004"))
    }

    @Test("A streaming call's span ends when the stream ends, not when its head arrives")
    func streamingSpan() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.stream([.chunk("one\n"), .pause(0.05), .chunk("two\n"), .drop()]))
        let probe = Probe(middlewares: [ClientTracingMiddleware(tracer: tracer)], transport: stub)
        var lines: [String] = []
        do {
            for try await line in probe.lines() {
                lines.append(line)
                if lines.count == 1 {
                    #expect(tracer.finishedSpans.isEmpty, "still open while the body streams")
                    #expect(tracer.activeSpans.count == 1)
                }
            }
            Issue.record("the stream should end with the dropped connection")
        } catch {
            #expect(error.caseName == "transport(-1005)")
        }
        #expect(lines == ["one", "two"])
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.errors.count == 1, "the error that ended the stream")
        #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("transport(-1005)"))
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test("A call cut by its deadline records error.type timedOut, what the caller got")
    func deadlineCut() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.json("{}").delayed(by: 10))
        let probe = Probe(middlewares: [ClientTracingMiddleware(tracer: tracer)], transport: stub, timeout: 0.1)
        let result = await probe.request(type: [String: Int].self)
        #expect(result.failure == .timedOut)

        #expect(await eventually { !tracer.finishedSpans.isEmpty }, "the span ends once the work below has stopped")
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("timedOut"))
        #expect(span.status?.code == .error)
        #expect((span.errors.first?.error as? TracedError)?.caseName == "timedOut")
    }

    @Test("The caller cancelling its task is not an error: no error.type, status unset, nothing recorded")
    func callerCancelsTask() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.json("{}").delayed(by: 10))
        let probe = Probe(middlewares: [ClientTracingMiddleware(tracer: tracer)], transport: stub)
        let call = Task { await probe.request(type: [String: Int].self) }
        #expect(await eventually { tracer.activeSpans.count == 1 })
        call.cancel()
        #expect(await call.value.failure == .cancelled)

        #expect(await eventually { !tracer.finishedSpans.isEmpty })
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes["error.type"] == nil)
        #expect(span.status == nil)
        #expect(span.errors.isEmpty)
    }

    @Test("A stream loop left early is the caller's choice, not an error: the span ends without error.type")
    func streamLeftEarly() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.stream([.chunk("one\n"), .pause(10), .chunk("two\n")]))
        let probe = Probe(middlewares: [ClientTracingMiddleware(tracer: tracer)], transport: stub)
        for try await _ in probe.lines() { break }

        #expect(await eventually { !tracer.finishedSpans.isEmpty })
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(span.attributes["error.type"] == nil)
        #expect(span.status == nil)
        #expect(span.errors.isEmpty)
    }

    @Test("Each redirect hop is a request sent: a span of its own, with its own traceparent and resend count")
    func redirectHops() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.status(302, headers: ["Location": "/next?page=2"]), .json("{}"))
        let probe = Probe(middlewares: [ClientTracingMiddleware(tracer: tracer)], transport: stub)
        let server = tracer.startSpan("GET /orders", context: .topLevel, ofKind: .server)
        _ = try await InstrumentationContext.withValue(server.context) {
            await probe.request(type: [String: Int].self)
        }.get()
        server.end()

        let hops = tracer.finishedSpans.filter { $0.kind == .client }
        try #require(hops.count == 2, "one span per request sent")
        #expect(hops.allSatisfy { $0.parentSpanID == server.spanID && $0.traceID == server.traceID })
        let sent = stub.capturedRequests.map { $0.headers.values(for: "traceparent") }
        #expect(sent == hops.map { [W3CTracer.traceparent(traceID: $0.traceID, spanID: $0.spanID)] })

        #expect(hops[0].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(302))
        #expect(hops[0].attributes["url.full"]?.toSpanAttribute() == .string("https://api.example.com:8443/todos"))
        #expect(hops[0].attributes["http.request.resend_count"] == nil)
        #expect(hops[0].status == nil, "a 3xx is not an error")
        #expect(hops[1].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(hops[1].attributes["url.full"]?.toSpanAttribute() == .string("https://api.example.com:8443/next?page=<redacted>"))
        #expect(hops[1].attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        #expect(hops[1].attributes["endpointrouter.endpoint"]?.toSpanAttribute() == .string("ProbeAPI.todos"))
        #expect(hops[1].status == nil)
    }

    @Test("Listed twice, the outer span covers the call and the hops of a redirect are its children")
    func redirectHopsUnderCallSpan() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport.answering(.status(301, headers: ["Location": "/next"]), .json("{}"))
        let probe = Probe(
            middlewares: [ClientTracingMiddleware(tracer: tracer), ClientTracingMiddleware(tracer: tracer)], transport: stub)
        _ = try await probe.request(type: [String: Int].self).get()

        let spans = tracer.finishedSpans
        try #require(spans.count == 3)
        let call = try #require(spans.first { $0.parentSpanID == nil })
        let hops = spans.filter { $0.parentSpanID == call.spanID }
        try #require(hops.count == 2)
        #expect(hops.map { $0.attributes["http.response.status_code"]?.toSpanAttribute() } == [.int64(301), .int64(200)])
        #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        let sent = stub.capturedRequests.map { $0.headers.values(for: "traceparent") }
        #expect(sent == hops.map { [W3CTracer.traceparent(traceID: $0.traceID, spanID: $0.spanID)] })
    }
}
