// Shared by most blocks: the imports an app file has, and the model types the docs decode into.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import EndpointRouter

struct Todo: Codable, Sendable, Equatable {
    var userId: Int
    var id: Int
    var title: String
    var completed: Bool
}

struct NewTodo: Codable, Sendable, Equatable {
    var userId: Int
    var title: String
    var completed: Bool
}

/// The error body an API sends with a 4xx.
struct APIError: Decodable, Sendable {
    var message: String
}

struct Media: Decodable, Sendable {
    var id: String
}

enum Secrets {
    static let token = "token"
}
