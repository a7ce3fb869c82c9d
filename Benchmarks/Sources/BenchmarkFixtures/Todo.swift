import Foundation

/// The record every fixture holds: a JSONPlaceholder-style todo, about 200 bytes pretty-printed.
public struct Todo: Codable, Sendable, Equatable {
    public var userId: Int
    public var id: Int
    public var title: String
    public var completed: Bool

    public init(userId: Int, id: Int, title: String, completed: Bool) {
        self.userId = userId
        self.id = id
        self.title = title
        self.completed = completed
    }
}

/// The body of a created todo: encodes to the 60-byte JSON object
/// `{"userId":1,"title":"quis ut nam facilis","completed":false}` (key order aside).
public struct NewTodo: Codable, Sendable {
    public var userId: Int
    public var title: String
    public var completed: Bool

    public init(userId: Int = 1, title: String = "quis ut nam facilis", completed: Bool = false) {
        self.userId = userId
        self.title = title
        self.completed = completed
    }

    /// The same body as a dictionary, for the `[String: Any]` variants.
    nonisolated(unsafe) public static let dictionary: [String: Any] = ["userId": 1, "title": "quis ut nam facilis", "completed": false]
}
