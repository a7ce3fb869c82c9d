// A service enum named API for blocks that call it (after `models`); the block follows at top level.
enum API: HTTPClient {
    case todos
    case todo(Int)
    case create(Todo)
    case delete(Int)
    case avatar
    case readme

    var host: String { "https://api.example.com" }
    var endpoint: String {
        switch self {
        case .todos, .create: "todos"
        case .todo(let id), .delete(let id): "todos/\(segment: id)"
        case .avatar: "avatar.png"
        case .readme: "README.md"
        }
    }
    var method: RequestMethod {
        switch self {
        case .create: .post
        case .delete: .delete
        default: .get
        }
    }
}
