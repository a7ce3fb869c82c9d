import EndpointRouter
import EndpointRouterTesting
import Foundation

/// An LLM-style chat API that streams its completion as Server-Sent Events, answered by a stub with
/// pauses between tokens as a real one would send them.
enum ChatStub {
    enum API: HTTPClient {
        case completions(prompt: String)
        var host: String { "https://chat.example.com" }
        var endpoint: String { "v1/completions" }
        var method: RequestMethod { .post }
        var parameters: [String: Any]? {
            switch self {
            case .completions(let prompt): ["prompt": prompt, "stream": true]
            }
        }
    }

    static let tokens = ["Hel", "lo", ",", " world", "!"]

    /// Every token an event of its own, 20 ms apart as a model would send them, then a `done` event.
    static let transport = StubTransport().on(.post, "/v1/completions") { _ in
        let events = tokens.enumerated().map { ServerSentEvent(data: $0.element, id: String($0.offset + 1)) }
        return .events(events + [ServerSentEvent(event: "done", data: "[DONE]")], interval: 0.02)
    }
}
