import EndpointRouter
import EndpointRouterMetrics
import EndpointRouterTesting
import Foundation
import MetricsTestKit
import Testing

@Suite("ClientMetricsMiddleware: OpenTelemetry HTTP client metrics in swift-metrics")
struct ClientMetricsMiddlewareTests {
    /// The dimensions of one recorder as a dictionary (each name appears once).
    private static func dimensions(_ recorder: TestRecorder) -> [String: String] {
        Dictionary(recorder.dimensions, uniquingKeysWith: { first, _ in first })
    }

    @Test("A call records its duration in seconds and its body sizes, with method, server, port, scheme and status")
    func success() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport.answering(.json(#"{"ok":true}"#).delayed(by: 0.05))
        let probe = Probe(method: .post, middlewares: [ClientMetricsMiddleware(factory: metrics)], transport: stub)
        _ = try await probe.request(type: [String: Bool].self).get()

        let durations = metrics.recorders(label: "http.client.request.duration")
        try #require(durations.count == 1)
        #expect(durations[0].aggregate, "a histogram")
        #expect(
            Self.dimensions(durations[0]) == [
                "http.request.method": "POST", "server.address": "api.example.com", "server.port": "8443",
                "url.scheme": "https", "http.response.status_code": "200",
            ])
        let seconds = try #require(durations[0].lastValue)
        #expect(seconds >= 0.05 && seconds < 60, "seconds (a 50 ms delay), not milliseconds or nanoseconds: \(seconds)")
        #expect(metrics.recorders(label: "http.client.response.body.size").first?.lastValue == 11)
        #expect(metrics.recorders(label: "http.client.request.body.size").first?.lastValue == 0)
    }

    @Test("Placed after RetryMiddleware it measures each request sent; a 503 carries error.type")
    func eachAttempt() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport.answering(.status(503), .json("{}"))
        let probe = Probe(
            host: "http://api.example.com", middlewares: [immediateRetry, ClientMetricsMiddleware(factory: metrics)], transport: stub)
        _ = try await probe.request(type: [String: Int].self).get()

        let durations = metrics.recorders(label: "http.client.request.duration").map(Self.dimensions)
        #expect(durations.count == 2)
        #expect(durations.contains { $0["http.response.status_code"] == "503" && $0["error.type"] == "503" })
        #expect(durations.contains { $0["http.response.status_code"] == "200" && $0["error.type"] == nil })
        #expect(durations.allSatisfy { $0["server.port"] == "80" }, "the scheme's default port")
    }

    @Test("A call that fails without an answer records error.type and no status code")
    func transportFailure() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport.answering(.urlError(.cannotConnectToHost))
        let probe = Probe(middlewares: [ClientMetricsMiddleware(factory: metrics)], transport: stub)
        _ = await probe.request(type: [String: Int].self)

        let durations = metrics.recorders(label: "http.client.request.duration").map(Self.dimensions)
        #expect(durations.count == 1)
        #expect(durations.first?["error.type"] == "transport(-1004)")
        #expect(durations.first?["http.response.status_code"] == nil)
    }

    @Test("A streaming call is recorded when its stream ends, with the bytes it read")
    func streamingCall() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport.answering(.stream([.chunk("one\n"), .pause(0.1), .chunk("two\n")]))
        let probe = Probe(middlewares: [ClientMetricsMiddleware(factory: metrics)], transport: stub)
        var lines: [String] = []
        for try await line in probe.lines() {
            lines.append(line)
            if lines.count == 1 {
                #expect(metrics.recorders(label: "http.client.request.duration").isEmpty, "not recorded while streaming")
            }
        }
        #expect(lines == ["one", "two"])
        let duration = try #require(metrics.recorders(label: "http.client.request.duration").first?.lastValue)
        #expect(duration >= 0.1, "the whole stream: \(duration)")
        #expect(metrics.recorders(label: "http.client.response.body.size").first?.lastValue == 8)
    }

    @Test("A call cut by its deadline records error.type timedOut; one its caller cancelled records no error.type")
    func deadlineAndCancellation() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport.answering(.json("{}").delayed(by: 10))
        let cut = Probe(middlewares: [ClientMetricsMiddleware(factory: metrics)], transport: stub, timeout: 0.1)
        #expect(await cut.request(type: [String: Int].self).failure == .timedOut)
        let durations = { metrics.recorders(label: "http.client.request.duration").map(Self.dimensions) }
        #expect(await eventually { durations().count == 1 })
        #expect(durations().first?["error.type"] == "timedOut")

        let cancelled = Probe(middlewares: [ClientMetricsMiddleware(factory: metrics)], transport: stub)
        let call = Task { await cancelled.request(type: [String: Int].self) }
        #expect(await eventually { stub.capturedRequests.count == 2 }, "cancelled while its request is out, not before it starts")
        call.cancel()
        #expect(await call.value.failure == .cancelled)
        #expect(await eventually { durations().count == 2 })
        #expect(durations().allSatisfy { $0["error.type"] != "cancelled" })
        #expect(durations().filter { $0["error.type"] == nil }.count == 1, "the cancelled call, without error.type")
    }
}
