import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Collects the reports of a ``CallMetricsMiddleware``.
final class MetricsLog: Sendable {
    private let reports = Locked<[CallMetrics]>([])

    var all: [CallMetrics] { reports.withLock { $0 } }

    var middleware: CallMetricsMiddleware {
        CallMetricsMiddleware { [reports] metrics in reports.withLock { $0.append(metrics) } }
    }
}

@Suite("Metrics middleware")
struct CallMetricsMiddlewareTests {
    @Test func reportsAPlainCallOnce() async throws {
        let server = try TestServer(response: .text("twelve bytes"))
        defer { server.stop() }
        let log = MetricsLog()
        let endpoint = OptionedEndpoint(
            host: server.baseURL, method: .post, body: .data(Data(repeating: 7, count: 100), contentType: "application/octet-stream"),
            middlewares: [log.middleware])
        let before = Date()
        #expect(await endpoint.request(type: String.self) == .success("twelve bytes"))
        let metrics = try #require(log.all.first)
        #expect(log.all.count == 1)
        #expect(metrics.endpointName == "OptionedEndpoint")
        #expect(metrics.method == .post)
        #expect(metrics.statusCode == 200 && metrics.error == nil)
        #expect(metrics.attempts == 1)
        #expect(metrics.bytesSent == 100 && metrics.bytesReceived == 12)
        #expect(metrics.start >= before.addingTimeInterval(-0.001) && metrics.duration > .zero && metrics.duration < .seconds(5))
    }

    @Test func countsRetriesAndAuthorizationReplays() async throws {
        let served = Counter()
        let transport = ClosureTransport { request in
            let call = served.increment()
            if request.headers["Authorization"] != "Bearer fresh" { return IncomingResponse(statusCode: 401) }
            return call < 4
                ? IncomingResponse(statusCode: 503, body: Data("busy".utf8)) : IncomingResponse(statusCode: 200, body: Data("ok".utf8))
        }
        let store = CredentialStore(credential: { .bearer("stale") }, refresh: { _ in .refreshed(.bearer("fresh")) })
        let log = MetricsLog()
        let endpoint = OptionedEndpoint(
            host: "https://api.example.com", transport: transport,
            middlewares: [
                log.middleware,
                AuthorizationMiddleware(store, host: "https://api.example.com"),
                RetryMiddleware(policy: RetryPolicy(maximumAttempts: 5), sleep: RecordedWaits().sleep),
            ])
        #expect(await endpoint.request(type: String.self) == .success("ok"))
        #expect(log.all.map(\.attempts) == [4])
        #expect(log.all.map(\.statusCode) == [200])
        #expect(log.all.map(\.bytesReceived) == [4 + 4 + 2])  // the 401 had no body; two 503s and the 200
    }

    @Test func attemptsAreCountedWhereverTheMetricsSit() async throws {
        let served = Counter()
        let transport = ClosureTransport { _ in IncomingResponse(statusCode: served.increment() < 3 ? 503 : 200) }
        let outer = MetricsLog()
        let inner = MetricsLog()
        let endpoint = OptionedEndpoint(
            host: "https://api.example.com", transport: transport,
            middlewares: [
                outer.middleware, RetryMiddleware(sleep: RecordedWaits().sleep), inner.middleware,
            ])
        #expect(await endpoint.request(type: EmptyResponse.self).failure == nil)
        #expect(outer.all.map(\.attempts) == [3])
        #expect(inner.all.map(\.attempts) == [1, 1, 1])
        #expect(inner.all.map(\.statusCode) == [503, 503, 200])
    }

    @Test func reportsErrorsAndUnacceptableStatuses() async throws {
        let log = MetricsLog()
        let failing = OptionedEndpoint(
            host: "https://api.example.com",
            transport: ClosureTransport { _ throws(HTTPClientError) in
                throw .transport(URLError(.cannotFindHost))
            }, middlewares: [log.middleware, RetryMiddleware(sleep: RecordedWaits().sleep)])
        #expect(await failing.request(type: String.self).failure == .transport(URLError(.cannotFindHost)))
        let notFound = OptionedEndpoint(
            host: "https://api.example.com", transport: ClosureTransport { _ in IncomingResponse(statusCode: 404) },
            middlewares: [log.middleware])
        #expect(await notFound.request(type: String.self).failure?.response?.statusCode == 404)
        let reports = log.all
        #expect(reports.count == 2)
        #expect(reports.first?.error == .transport(URLError(.cannotFindHost)) && reports.first?.statusCode == nil)
        #expect(reports.first?.attempts == 3)
        #expect(reports.last?.statusCode == 404 && reports.last?.error == nil && reports.last?.attempts == 1)
        #expect(reports.map(\.outcome) == ["transport(\(URLError.Code.cannotFindHost.rawValue))", "404"])
    }

    @Test func aCallCutByItsDeadlineIsReportedAsTimedOut() async throws {
        let server = try TestServer(response: .hang)
        defer { server.stop() }
        let log = MetricsLog()
        let endpoint = OptionedEndpoint(host: server.baseURL, timeout: 0.3, middlewares: [log.middleware])
        #expect(await endpoint.request(type: String.self).failure == .timedOut)
        #expect(await eventually { log.all.count == 1 })
        #expect(log.all.first?.error == .timedOut)
        #expect(log.all.first?.outcome == "timedOut")
        #expect(log.all.first?.attempts == 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.all.count == 1)
    }

    @Test func everyConcurrentCallIsReportedExactlyOnce() async throws {
        let server = try TestServer { request in .text(request.header("X-Request-ID") ?? "") }
        defer { server.stop() }
        let log = MetricsLog()
        let endpoint = OptionedEndpoint(host: server.baseURL, middlewares: [log.middleware])
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask { _ = await endpoint.request(type: String.self, headers: ["X-Request-ID": "\(index)"]) }
            }
        }
        #expect(log.all.count == 30)
        #expect(log.all.allSatisfy { $0.attempts == 1 && $0.statusCode == 200 })
        #expect(log.all.map(\.bytesReceived).reduce(0, +) == Int64((0..<30).map { "\($0)".utf8.count }.reduce(0, +)))
    }
}

@Suite("Order of the built-in middlewares")
struct BuiltInOrderTests {
    /// Writes `name>` when the request passes and `<name` when the response passes.
    struct Probe: HTTPMiddleware {
        let name: String
        let trail: Locked<[String]>
        func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
            trail.withLock { $0.append("\(name)>") }
            defer { trail.withLock { $0.append("<\(name)") } }
            return try await next(request, context)
        }
    }

    @Test func theFirstSeesTheRequestFirstAndTheResponseLast() async throws {
        let trail = Locked<[String]>([])
        let served = Counter()
        let transport = ClosureTransport { request in
            let call = served.increment()
            trail.withLock { $0.append("send:\(request.headers["Authorization"] ?? "none")") }
            if request.headers["Authorization"] != "Bearer fresh" { return IncomingResponse(statusCode: 401) }
            return IncomingResponse(statusCode: call == 2 ? 503 : 200)
        }
        let store = CredentialStore(credential: { .bearer("stale") }, refresh: { _ in .refreshed(.bearer("fresh")) })
        let middlewares: [any HTTPMiddleware] = [
            CallMetricsMiddleware { report in
                trail.withLock { $0.append("metrics:\(report.attempts)") }
            },
            Probe(name: "a", trail: trail),
            AuthorizationMiddleware(store, host: "https://api.example.com"),
            Probe(name: "b", trail: trail),
            RetryMiddleware(sleep: RecordedWaits().sleep),
            Probe(name: "c", trail: trail),
        ]
        let endpoint = OptionedEndpoint(host: "https://api.example.com", transport: transport, middlewares: middlewares)
        #expect(await endpoint.request(type: EmptyResponse.self).failure == nil)
        #expect(
            trail.withLock { $0 } == [
                "a>", "b>", "c>", "send:Bearer stale", "<c", "<b",  // 401: authorization refreshes
                "b>", "c>", "send:Bearer fresh", "<c",  // 503: retry sends again
                "c>", "send:Bearer fresh", "<c", "<b", "<a",  // 200
                "metrics:3",
            ])
    }
}
