import EndpointRouter
import EndpointRouterLogging
import EndpointRouterMetrics
import EndpointRouterTesting
import EndpointRouterTracing
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

/// No credential value reaches a log line, its metadata, a metrics dimension, a span attribute, a
/// span's name or its recorded error, whichever way the request carries it.
@Suite("No credential reaches logs, metrics or traces")
struct CredentialLeakTests {
    /// One way a request carries a credential, and the texts that must appear nowhere but on the wire
    /// (the last of them as it is sent).
    struct Carrier: Sendable, CustomTestStringConvertible {
        let name: String
        let credential: Credential
        let secrets: [String]
        var testDescription: String { name }
    }

    static let carriers = [
        Carrier(name: "bearer", credential: .bearer("BEARER-SECRET"), secrets: ["BEARER-SECRET"]),
        Carrier(
            name: "basic", credential: .basic(username: "ada", password: "BASIC-PASSWORD"),
            secrets: ["BASIC-PASSWORD", Data("ada:BASIC-PASSWORD".utf8).base64EncodedString()]),
        Carrier(name: "API key header", credential: .header(name: "X-API-Key", value: "KEY-SECRET"), secrets: ["KEY-SECRET"]),
        Carrier(name: "API key query", credential: .query(name: "api_key", value: "QUERY-SECRET"), secrets: ["QUERY-SECRET"]),
    ]

    /// Secrets every call carries besides its credential: a cookie and a header the endpoint
    /// declared sensitive.
    static let alwaysSecret = ["COOKIE-SECRET", "DECLARED-SECRET"]

    @Test("A successful and a failed call", arguments: carriers)
    func nothingLeaks(_ carrier: Carrier) async throws {
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "api", factory: { _ in logs })
        let metrics = TestMetrics()
        let tracer = W3CTracer()
        let store = CredentialStore(credential: { carrier.credential }, refresh: { _ in .loggedOut })
        for answer in [StubResponse.json(#"{"token":"x"}"#), .urlError(.cannotConnectToHost), .status(401)] {
            let stub = StubTransport.answering(answer)
            let probe = Probe(
                endpoint: "todos\(query: "page=2")",
                headers: ["Cookie": "sid=COOKIE-SECRET", "X-Session": "DECLARED-SECRET"],
                redirectPolicy: RedirectPolicy(sensitiveHeaders: ["X-Session"]),
                middlewares: [
                    ClientTracingMiddleware(tracer: tracer),
                    AuthorizationMiddleware(store, host: "https://api.example.com:8443"),
                    LoggingMiddleware(includesHeaders: true, curl: true, sink: .logger(logger)),
                    ClientMetricsMiddleware(factory: metrics),
                    ClientTracingMiddleware(tracer: tracer),
                ],
                transport: stub)
            _ = await probe.request(type: [String: String].self)
            // The secrets did go out: otherwise this test could not fail.
            let sent = try #require(stub.capturedRequests.first)
            let wire = sent.url.absoluteString + sent.headers.fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
            for secret in carrier.secrets.suffix(1) + Self.alwaysSecret { #expect(wire.contains(secret), "\(secret) was not sent") }
        }

        var texts: [String] = []
        for entry in logs.entries {
            texts.append(entry.message.description)
            for (key, value) in entry.metadata { texts.append("\(key)=\(value)") }
        }
        #expect(logs.entries.count >= 6)
        for recorder in metrics.recorders {
            texts.append(recorder.label)
            texts += recorder.dimensions.map { "\($0.0)=\($0.1)" }
        }
        #expect(metrics.recorders.count >= 3)
        let spans = tracer.finishedSpans
        #expect(spans.count >= 6, "two spans a call")
        for span in spans {
            texts.append(span.operationName)
            // SpanAttributes is not a Sequence: forEach is its only way to list every attribute.
            // swift-format-ignore: ReplaceForEachWithForLoop
            span.attributes.forEach { key, value in texts.append("\(key)=\(value)") }
            texts += span.errors.map { String(reflecting: $0.error) }
            texts += span.events.map(\.name)
        }
        #expect(texts.contains { $0.contains(Redaction.placeholder) }, "the credentials were seen, and redacted")
        for secret in carrier.secrets + Self.alwaysSecret {
            let leaks = texts.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "\(secret) leaked: \(leaks)")
        }
    }
}
