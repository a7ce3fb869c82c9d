import EndpointRouter
import EndpointRouterLogging
import EndpointRouterTesting
import InMemoryLogging
import Logging
import Testing

@Suite("LoggingMiddleware writing to a swift-log Logger")
struct LoggerSinkTests {
    @Test("Each line reaches the logger at its level, with the line's facts as string metadata")
    func linesWithMetadata() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "api", factory: { _ in handler })
        let stub = StubTransport.answering(.json(#"{"ok":true}"#))
        let probe = Probe(middlewares: [LoggingMiddleware(sink: .logger(logger, metadataPrefix: "http."))], transport: stub)
        _ = try await probe.request(type: [String: Bool].self).get()

        let entries = handler.entries
        try #require(entries.count == 2)
        #expect(entries.map(\.level) == [.info, .info])
        #expect(entries[0].message.description == "→ ProbeAPI.todos #1 GET https://api.example.com:8443/todos")
        #expect(entries[1].message.description.hasPrefix("← ProbeAPI.todos #1 GET https://api.example.com:8443/todos 200 in "))
        #expect(entries[1].metadata["http.endpoint"] == "ProbeAPI.todos")
        #expect(entries[1].metadata["http.method"] == "GET")
        #expect(entries[1].metadata["http.status"] == "200")
        #expect(entries[1].metadata["http.bytes"] == "11")
        #expect(entries[1].metadata["http.attempt"] == "1")
        #expect(entries[1].metadata["status"] == nil, "every key carries the prefix")
    }

    @Test("A failed call is logged at the failure level with the error's case name")
    func failureLevel() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "api", factory: { _ in handler })
        let stub = StubTransport.answering(.urlError(.cannotConnectToHost))
        let probe = Probe(middlewares: [LoggingMiddleware(failureLevel: .error, sink: .logger(logger))], transport: stub)
        let result = await probe.request(type: [String: Bool].self)
        #expect(result.failure?.caseName == "transport(-1004)")
        let failure = try #require(handler.entries.last)
        #expect(failure.level == .error)
        #expect(failure.metadata["error"] == "transport(-1004)")
    }

    @Test("A stream the consumer left early is logged at the call's level as ended by the caller, not as a failure")
    func streamLeftEarly() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "api", factory: { _ in handler })
        let stub = StubTransport.answering(.stream([.chunk("one\n"), .pause(10), .chunk("two\n")]))
        let probe = Probe(middlewares: [LoggingMiddleware(sink: .logger(logger))], transport: stub)
        for try await _ in probe.lines() { break }

        #expect(await eventually { handler.entries.count == 3 })
        let end = try #require(handler.entries.last)
        #expect(end.level == .info)
        let line = "⇠ ProbeAPI.todos #1 GET https://api.example.com:8443/todos stream ended by the caller after "
        #expect(end.message.description.hasPrefix(line))
        #expect(end.metadata["error"] == nil)
    }

    @Test("Every level maps onto the swift-log level of the same name, and the logger's level filters")
    func levels() {
        var handler = InMemoryLogHandler()
        handler.logLevel = .notice
        let logger = Logger(label: "api", factory: { [handler] _ in handler })
        let sink = LogSink.logger(logger)
        for level in LogLevel.allCases { sink.write(level, level.rawValue, [:]) }
        #expect(handler.entries.map(\.level) == [.notice, .warning, .error, .critical])
        #expect(handler.entries.map(\.message.description) == ["notice", "warning", "error", "critical"])
        #expect(LogLevel.allCases.map { Logger.Level($0).rawValue } == LogLevel.allCases.map(\.rawValue))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
