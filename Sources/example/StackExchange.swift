import EndpointRouter
import Foundation

/// The Stack Exchange API (https://api.stackexchange.com), from the protocol-oriented network layer
/// tutorial: every list comes wrapped as `{"items": [...], "has_more": …, "quota_remaining": …}`.
/// Without an API key an address gets 300 requests a day.
enum StackExchange: HTTPClient {
    case topQuestions(site: String, count: Int)

    var host: String { "https://api.stackexchange.com" }
    var path: String { "/2.3" }
    var endpoint: String { "questions" }
    var parameters: [String: Any]? {
        switch self {
        case .topQuestions(let site, let count): ["order": "desc", "sort": "votes", "site": site, "pagesize": count]
        }
    }

    /// The API writes `question_id`, `display_name`: decode them as `questionId`, `displayName`.
    var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    var timeout: TimeInterval? { 15 }
}

/// One question of a Stack Exchange site: decoded straight from `items`, no wrapper type needed.
struct Question: Decodable, Sendable {
    struct Owner: Decodable, Sendable {
        let displayName: String?
    }

    let questionId: Int
    let title: String
    let score: Int
    let owner: Owner?
}
