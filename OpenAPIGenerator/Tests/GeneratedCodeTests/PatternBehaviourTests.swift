import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

@testable import GoldenPatterns

/// The pattern documents of issue 42 (`Fixtures/Patterns`) as generated (`Goldens/Patterns`, which
/// this package compiles): what each call puts on the wire, and what it makes of the answers real
/// servers send.
struct PatternBehaviourTests {
    static let server = "https://api.example.test/v1"

    /// r1: `anyOf [integer, null]` in a path is one `Int` in the path (it did not compile).
    @Test func aNullablePathParameterIsSentAsItsValue() async throws {
        R1API.configuration.use(server: Self.server)
        let stub = StubTransport { _ in .status(200) }
        _ = try await withTransport(stub) { try await R1.patchItem(slot: 42).get() }
        let request = try #require(stub.lastRequest)
        #expect(request.method == .patch)
        #expect(request.url.absoluteString == "https://api.example.test/v1/items/42")
    }

    /// r2: a path parameter whose schema has no type is a string, escaped as one segment (it was
    /// any JSON and went out as `%22value%22`).
    @Test func aTypelessPathParameterIsSentAsText() async throws {
        R2API.configuration.use(server: Self.server)
        let stub = StubTransport { _ in .status(200) }
        _ = try await withTransport(stub) { try await R2.triggerRun(jobId: "job 7/b").get() }
        #expect(stub.lastRequest?.url.absoluteString == "https://api.example.test/v1/jobs/job%207%2Fb/runs")
    }

    /// r3: the ordinary call asks for JSON and decodes it; the events call asks for the stream and
    /// decodes each event's data as the event schema.
    @Test func jsonOrEventsAnswersGetTwoCallsEachAskingForItsMediaType() async throws {
        R3API.configuration.use(server: Self.server)
        let json = StubTransport { _ in .json(#"{"id": "chat-1"}"#) }
        let chat = try await withTransport(json) { try await R3.createChat(CreateChatRequest(stream: false)).get() }
        #expect(chat == Chat(id: "chat-1"))
        let request = try #require(json.lastRequest)
        #expect(request.headers["Accept"] == "application/json")
        #expect(try JSONSerialization.jsonObject(with: request.body) as? [String: Bool] == ["stream": false])

        let events = StubTransport { _ in
            .events([
                ServerSentEvent(data: #"{"delta": "Hel"}"#), ServerSentEvent(event: "ping", data: ""),
                ServerSentEvent(data: #"{"delta": "lo"}"#), ServerSentEvent(data: "[DONE]"),
            ])
        }
        let chunks = try await withTransport(events) {
            try await R3.createChatEvents(CreateChatRequest(stream: true)).reduce(into: [Chunk]()) { $0.append($1) }
        }
        #expect(chunks == [Chunk(delta: "Hel"), Chunk(delta: "lo")])
        #expect(events.lastRequest?.headers["Accept"] == "text/event-stream")
    }

    @Test func bytesOrEventsAnswersGiveTheBytesToTheOrdinaryCall() async throws {
        R3API.configuration.use(server: Self.server)
        let audio = Data([0x49, 0x44, 0x33, 0x00, 0xFF])
        let stub = StubTransport { _ in .data(audio, headers: ["Content-Type": "application/octet-stream"]) }
        let bytes = try await withTransport(stub) { try await R3.createSpeech().get() }
        #expect(bytes == audio)
        #expect(stub.lastRequest?.headers["Accept"] == "application/octet-stream")
    }

    @Test func eventDataThatDoesNotDecodeFailsTyped() async throws {
        R3API.configuration.use(server: Self.server)
        let stub = StubTransport { _ in .events([ServerSentEvent(data: #"{"delta": 5}"#)]) }
        do {
            _ = try await withTransport(stub) {
                var iterator = R3.createSpeechEvents().makeAsyncIterator()
                return try await iterator.next()
            }
            Issue.record("a number where the schema says string must fail")
        } catch {
            guard case .decodingFailed(_, let reason)? = error as? HTTPClientError else {
                Issue.record("expected .decodingFailed, got \(error)")
                return
            }
            #expect(reason.hasPrefix("event 1 of the stream is not a valid Chunk"))
        }
    }

    /// r4: JSON or NDJSON whose lines are declared `type: string` with objects in the example: the
    /// ordinary call decodes the JSON, the lines call reads each object line as a `JSONValue`.
    @Test func jsonOrLinesAnswersReadTheObjectLinesRealServersSend() async throws {
        R4API.configuration.use(server: Self.server)
        let json = StubTransport { _ in .json(#"{"content": ["a", "b"]}"#) }
        let log = try await withTransport(json) { try await R4.getLog().get() }
        #expect(log == GetLogResponse(content: ["a", "b"]))
        #expect(json.lastRequest?.headers["Accept"] == "application/json")

        let lines = StubTransport { _ in
            .stream([.chunk("{\"content\": \"a\"}\n{\"content\": \"b\"}\n")], headers: ["Content-Type": "application/x-ndjson"])
        }
        let values = try await withTransport(lines) { try await R4.getLogLines().collect() }
        #expect(values == [.object(["content": .string("a")]), .object(["content": .string("b")])])
        #expect(lines.lastRequest?.headers["Accept"] == "application/x-ndjson")
    }

    /// r5: without a mapping, the value servers send is the alternative's single `enum` value; a
    /// value no alternative declares is kept rather than failing the whole answer.
    @Test func aDiscriminatorWithoutMappingMatchesTheAlternativesEnumValues() async throws {
        R5API.configuration.use(server: Self.server)
        let stub = StubTransport { _ in
            .json(
                #"""
                [{"type": "function", "name": "get_weather"}, {"type": "custom", "input": "x"},
                 {"type": "FunctionCall", "name": "by_component_name"}, {"type": "web_search", "query": "swift"}]
                """#)
        }
        let calls = try await withTransport(stub) { try await R5.listCalls().get() }
        #expect(calls.count == 4)
        #expect(calls.first == .functionCall(FunctionCall(type: .function, name: "get_weather")))
        #expect(calls.dropFirst().first == .customCall(CustomCall(type: .custom, input: "x")))
        guard calls.count == 4, case .functionCall(let byName) = calls[2], case .unknown(let unknown) = calls[3] else {
            Issue.record("unexpected alternatives: \(calls)")
            return
        }
        #expect(byName.name == "by_component_name")
        #expect(unknown == .object(["type": .string("web_search"), "query": .string("swift")]))
    }

    /// r6: a required, nullable property is sent as `null`, not left out (FastAPI answers 422
    /// without the key).
    @Test func aRequiredNullablePropertyIsSentAsNull() async throws {
        R6API.configuration.use(server: Self.server)
        let stub = StubTransport { _ in .status(200) }
        _ = try await withTransport(stub) { try await R6.trigger(Body(scheduledAt: nil)).get() }
        #expect(String(decoding: try #require(stub.lastRequest).body, as: UTF8.self) == #"{"scheduled_at":null}"#)

        let date = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await withTransport(stub) { try await R6.trigger(Body(scheduledAt: date)).get() }
        #expect(String(decoding: try #require(stub.lastRequest).body, as: UTF8.self) == #"{"scheduled_at":"2023-11-14T22:13:20Z"}"#)
    }

    /// r6: a deprecated property keeps its key on the wire; the public name is the deprecated one,
    /// so reading it here (through the stored `_old`) is what avoids the warning.
    @Test func aDeprecatedPropertyStillTravelsUnderItsKey() async throws {
        R6API.configuration.use(server: Self.server)
        let stub = StubTransport { _ in .status(200) }
        _ = try await withTransport(stub) { try await R6.trigger(Body(scheduledAt: nil, old: "v1")).get() }
        #expect(String(decoding: try #require(stub.lastRequest).body, as: UTF8.self) == #"{"old":"v1","scheduled_at":null}"#)
        let decoded = try R6API.jsonDecoder.decode(Body.self, from: Data(#"{"scheduled_at": null, "old": "v0"}"#.utf8))
        #expect(decoded._old == "v0")
        #expect(decoded.scheduledAt == nil)
    }

    /// r7 (issue 43): a path that writes a query keeps it, through `\(query:)`, before the
    /// parameters (a `?` in an endpoint is otherwise refused with `.delimiterInEndpoint`).
    @Test func aPathWithALiteralQueryKeepsItBeforeTheParameters() async throws {
        R7API.configuration.use(server: Self.server)
        let stub = StubTransport { _ in .json(#"["dune"]"#) }
        let books = try await withTransport(stub) { try await R7.listBooks(limit: 2).get() }
        #expect(books == ["dune"])
        #expect(stub.lastRequest?.url.absoluteString == "https://api.example.test/v1/items?kind=book&limit=2")

        let item = StubTransport { _ in .status(200) }
        _ = try await withTransport(item) { try await R7.getItem(id: "a/b", lang: "en&x").get() }
        #expect(item.lastRequest?.url.absoluteString == "https://api.example.test/v1/items/a%2Fb?view=full&lang=en%26x")
    }

    /// oneOf without a discriminator: the alternative that declares the most keys present wins, the
    /// earlier one on a tie (the first that decoded lost `width` and `height` before).
    @Test func aOneOfWithoutDiscriminatorPrefersTheAlternativeThatAccountsForMostKeys() async throws {
        R8API.configuration.use(server: Self.server)
        let detailed = StubTransport { _ in .json(#"{"id": "s1", "width": 2, "height": 3}"#) }
        #expect(
            try await withTransport(detailed) { try await R8.getShape(id: "s1").get() }
                == .detailed(Detailed(id: "s1", width: 2, height: 3)))
        let basic = StubTransport { _ in .json(#"{"id": "s2"}"#) }
        #expect(try await withTransport(basic) { try await R8.getShape(id: "s2").get() } == .basic(Basic(id: "s2")))
        let tie = StubTransport { _ in .json(#"{"id": "s3", "colour": "red"}"#) }
        #expect(try await withTransport(tie) { try await R8.getShape(id: "s3").get() } == .basic(Basic(id: "s3")))
    }

    /// Issue 42, item 9: a configuration per task, so one process calls two servers of one API
    /// (at once), each with its own configuration, and the shared one is left alone.
    @Test func twoConfigurationsCallTwoServersAtOnce() async throws {
        let stub = StubTransport { _ in .status(200) }
        let staging = R2API.Configuration(server: "https://staging.example.test")
        let production = R2API.Configuration(server: "https://production.example.test")
        await withTransport(stub) {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        _ = await R2API.withConfiguration(index % 2 == 0 ? staging : production) {
                            await R2.triggerRun(jobId: "job\(index)")
                        }
                    }
                }
            }
        }
        let urls = Set(stub.capturedRequests.map(\.url.absoluteString))
        #expect(
            urls == [
                "https://staging.example.test/jobs/job0/runs", "https://production.example.test/jobs/job1/runs",
                "https://staging.example.test/jobs/job2/runs", "https://production.example.test/jobs/job3/runs",
            ])
        #expect(R2API.configuration.server != "https://staging.example.test")
    }
}
