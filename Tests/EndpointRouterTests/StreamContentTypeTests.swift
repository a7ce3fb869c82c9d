import Foundation
import Testing

@testable import EndpointRouter

/// `events()`, `lines()` and `jsonLines(of:)` read only answers of the media types they parse
/// (issue 42): an endpoint that answers JSON unless asked for events gave a stream of no event
/// and no error. An answer without a `Content-Type` stays readable.
struct StreamContentTypeTests {
    static func endpoint(_ transport: any HTTPTransport) -> TestEndpoint {
        TestEndpoint(host: "https://stream.example.com", endpoint: "chat", timeout: 30, transport: transport)
    }

    static func transport(_ contentType: String?, _ body: String) -> ScriptedStreamTransport {
        ScriptedStreamTransport(headers: contentType.map { ["Content-Type": $0] } ?? [:]) { _, _ in [.piece(body)] }
    }

    /// The reason of the `.decodingFailed` the stream ends with, or `nil` when it reads to its end.
    static func failure<Element>(_ stream: ResponseStream<Element>) async -> (elements: Int, reason: String?, status: Int?) {
        var count = 0
        do {
            for try await _ in stream { count += 1 }
            return (count, nil, nil)
        } catch {
            guard case .decodingFailed(let response, let reason) = error else {
                Issue.record("expected .decodingFailed, got \(error)")
                return (count, "\(error)", nil)
            }
            return (count, reason, response.statusCode)
        }
    }

    @Test func eventsOfAJSONAnswerFailTypedBeforeAnyElement() async {
        let transport = Self.transport("application/json; charset=utf-8", #"{"id": "chat-1", "choices": []}"#)
        let (count, reason, status) = await Self.failure(Self.endpoint(transport).events())
        #expect(count == 0)
        #expect(status == 200)
        #expect(
            reason?.hasPrefix("the answer's Content-Type is application/json, and events() reads text/event-stream") == true,
            "\(reason ?? "")")
    }

    @Test func eventsOfAnEmptyHTMLAnswerFailToo() async {
        let transport = ScriptedStreamTransport(headers: ["Content-Type": "text/html"]) { _, _ in [] }
        let (count, reason, _) = await Self.failure(Self.endpoint(transport).events())
        #expect(count == 0)
        #expect(reason?.contains("text/html") == true)
    }

    @Test func eventsWithAParameterOrWithoutAContentTypeAreRead() async throws {
        for type in ["text/event-stream; charset=utf-8", "Text/Event-Stream", nil] {
            let transport = Self.transport(type, "data: a\n\ndata: b\n\n")
            let events = try await Self.endpoint(transport).events().collect()
            #expect(events.map(\.data) == ["a", "b"], "\(type ?? "no Content-Type")")
        }
    }

    @Test func jsonLinesReadJSONLinesAndJSONTypesOnly() async throws {
        struct Row: Decodable, Equatable, Sendable { let id: Int }
        for type in ["application/x-ndjson", "application/jsonl", "application/json", nil] {
            let rows = try await Self.endpoint(Self.transport(type, "{\"id\":1}\n{\"id\":2}\n")).jsonLines(of: Row.self).collect()
            #expect(rows == [Row(id: 1), Row(id: 2)], "\(type ?? "no Content-Type")")
        }
        for type in ["text/html", "text/event-stream"] {
            let (count, reason, _) = await Self.failure(
                Self.endpoint(Self.transport(type, "{\"id\":1}\n")).jsonLines(of: Row.self))
            #expect(count == 0)
            #expect(reason?.contains("\(type), and jsonLines(of:) reads application/x-ndjson") == true, "\(reason ?? "")")
        }
    }

    @Test func linesReadTextAndJSONButNotBinary() async throws {
        for type in ["text/plain", "application/x-ndjson", "application/problem+json", nil] {
            let lines = try await Self.endpoint(Self.transport(type, "a\nb\n")).lines().collect()
            #expect(lines == ["a", "b"], "\(type ?? "no Content-Type")")
        }
        let (count, reason, _) = await Self.failure(Self.endpoint(Self.transport("application/octet-stream", "a\nb\n")).lines())
        #expect(count == 0)
        #expect(reason?.contains("application/octet-stream, and lines() reads") == true, "\(reason ?? "")")
    }

    /// `bytes()` reads any answer: it parses nothing.
    @Test func bytesReadAnyContentType() async throws {
        let pieces = try await Self.endpoint(Self.transport("image/png", "\u{89}PNG")).bytes().collect()
        #expect(pieces.reduce(Data(), +) == Data("\u{89}PNG".utf8))
    }
}
