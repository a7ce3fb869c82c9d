import Foundation
import Testing

@testable import EndpointRouter

/// Which statuses count as success, and decoding a value nested in the body without an envelope type.
@Suite("Acceptable statuses and nested values")
struct ResponseShapeTests {
    struct Answer: HTTPClient {
        let status: Int
        let body: String
        var host: String { "https://api.example.com" }
        var endpoint: String { "x" }
        var transport: any HTTPTransport {
            let (status, body) = (status, body)
            return ClosureTransport { _ in IncomingResponse(statusCode: status, body: Data(body.utf8)) }
        }
    }

    struct SetCodes: HTTPClient {
        let status: Int
        var host: String { "https://api.example.com" }
        var endpoint: String { "x" }
        var acceptableStatusCodes: Set<Int> { [200, 304] }
        var transport: any HTTPTransport {
            let status = status
            return ClosureTransport { _ in IncomingResponse(statusCode: status) }
        }
    }

    struct ClosedCodes: HTTPClient {
        let status: Int
        var host: String { "https://api.example.com" }
        var endpoint: String { "x" }
        var acceptableStatusCodes: ClosedRange<Int> { 200...399 }
        var transport: any HTTPTransport {
            let status = status
            return ClosureTransport { _ in IncomingResponse(statusCode: status) }
        }
    }

    static func accepted<C: HTTPClient>(_ client: C) async -> Bool {
        switch await client.request(type: EmptyResponse.self) {
        case .success:
            return true
        case .failure(.unacceptableStatusCode):
            return false
        case .failure(let other):
            Issue.record("unexpected \(other)")
            return false
        }
    }

    @Test(arguments: [(200, true), (204, true), (299, true), (300, false), (304, false), (404, false)])
    func theDefaultIsTwoHundreds(_ status: Int, _ accepted: Bool) async {
        #expect(await Self.accepted(Answer(status: status, body: "")) == accepted)
    }

    @Test(arguments: [(200, true), (201, false), (304, true), (404, false)])
    func aSetAcceptsExactlyItsCodes(_ status: Int, _ accepted: Bool) async {
        #expect(await Self.accepted(SetCodes(status: status)) == accepted)
    }

    @Test(arguments: [(200, true), (399, true), (400, false), (199, false)])
    func aClosedRangeIncludesItsUpperBound(_ status: Int, _ accepted: Bool) async {
        #expect(await Self.accepted(ClosedCodes(status: status)) == accepted)
    }

    struct Question: Decodable, Equatable { let id: Int }

    /// `Data`, `String` and `EmptyResponse`, and the optionals of `Data` and `EmptyResponse`, take
    /// a body that is not JSON without a decoder; a model type still goes through the decoder.
    @Test func rawBodyTypesAndTheirOptionalsNeedNoJSON() async throws {
        let text = "not JSON: <html>"
        let answer = Answer(status: 200, body: text)
        #expect(try await answer.request(type: Data.self).get() == Data(text.utf8))
        #expect(try await answer.request(type: Data?.self).get() == Data(text.utf8))
        #expect(try await answer.request(type: String.self).get() == text)
        #expect(try await answer.request(type: EmptyResponse.self).get() == EmptyResponse())
        #expect(try await answer.request(type: EmptyResponse?.self).get() == EmptyResponse())
        let empty = Answer(status: 204, body: "")
        #expect(try await empty.request(type: EmptyResponse?.self).get() == EmptyResponse())
        guard case .failure(.decodingFailed) = await answer.request(type: [String: Int].self) else {
            Issue.record("a model type was answered without the decoder")
            return
        }
    }

    @Test func aValueUnderOneKey() async throws {
        let body = #"{"items": [{"id": 1}, {"id": 2}], "has_more": false}"#
        let questions = try await Answer(status: 200, body: body).request(type: [Question].self, at: "items").get()
        #expect(questions == [Question(id: 1), Question(id: 2)])
    }

    @Test func aValueUnderNestedKeysAndScalars() async throws {
        let body = #"{"data": {"page": {"total": 42, "title": "a.b"}}}"#
        let endpoint = Answer(status: 200, body: body)
        #expect(try await endpoint.request(type: Int.self, at: "data.page.total").get() == 42)
        #expect(try await endpoint.request(type: String.self, at: "data.page.title").get() == "a.b")
        let response = try await endpoint.response(type: Int.self, at: "data.page.total").get()
        #expect(response.statusCode == 200 && response.value == 42)
    }

    @Test func aMissingKeyNamesTheKeyAndWhereItWasLookedFor() async {
        let result = await Answer(status: 200, body: #"{"data": {}}"#).request(type: [Question].self, at: "data.items")
        guard case .decodingFailed(_, let message) = result.failure else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
        #expect(message.contains("'items'") && message.contains("'data'"), "\(message)")
    }

    @Test(arguments: ["", ".", "data..items", "items."])
    func anEmptyKeyIsRefusedWithAnExample(_ keyPath: String) async {
        let result = await Answer(status: 200, body: #"{"items": []}"#).request(type: [Question].self, at: keyPath)
        guard case .decodingFailed(_, let message) = result.failure else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
        #expect(message.contains("data.items"), "\(message)")
    }

    @Test func theStatusIsCheckedBeforeTheKeyPath() async {
        let result = await Answer(status: 500, body: #"{"error": "x"}"#).request(type: [Question].self, at: "items")
        guard case .unacceptableStatusCode(let response) = result.failure else {
            Issue.record("expected .unacceptableStatusCode, got \(result)")
            return
        }
        #expect(response.statusCode == 500)
    }

    @Test func concurrentCallsWithDifferentKeyPathsShareOneDecoder() async throws {
        struct Shared: HTTPClient {
            static let decoder = JSONDecoder()
            var host: String { "https://api.example.com" }
            var endpoint: String { "x" }
            var decoder: JSONDecoder { Self.decoder }
            var transport: any HTTPTransport {
                ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data(#"{"a": 1, "b": {"c": 2}}"#.utf8)) }
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let (path, expected) = index.isMultiple(of: 2) ? ("a", 1) : ("b.c", 2)
                    let value = try await Shared().request(type: Int.self, at: path).get()
                    #expect(value == expected)
                }
            }
            try await group.waitForAll()
        }
    }
}
