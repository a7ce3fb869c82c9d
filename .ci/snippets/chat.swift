// Streaming endpoints for the Streaming docs: an LLM-style chat, a log tail, a feed and a media stream.
struct LogLine: Decodable, Sendable {
    var level: String
    var message: String
}

enum ChatAPI: HTTPClient {
    case completions(String)
    var host: String { "https://chat.example.com" }
    var endpoint: String { "v1/completions" }
    var method: RequestMethod { .post }
    var parameters: [String: Any]? {
        switch self {
        case .completions(let prompt): ["prompt": prompt, "stream": true]
        }
    }
}

enum LogsAPI: HTTPClient {
    case tail(app: String)
    var host: String { "https://logs.example.com" }
    var endpoint: String {
        switch self {
        case .tail(let app): "apps/\(segment: app)/tail"
        }
    }
}

enum FeedAPI: HTTPClient {
    case firehose, live
    var host: String { "https://feed.example.com" }
    var endpoint: String { self == .live ? "live" : "firehose" }
}

enum MediaAPI: HTTPClient {
    case live
    var host: String { "https://media.example.com" }
    var endpoint: String { "live.ts" }
}

let prompt = "Say hello"
