import EndpointRouter
import Foundation

/// The JSONPlaceholder API (https://jsonplaceholder.typicode.com) as one enum: one case per endpoint.
enum JSONPlaceholder: HTTPClient {
    case todos
    case todo(id: Int)
    case filteredTodos(userId: Int, completed: Bool)
    case createTodo(NewTodo)
    case replaceTodo(Todo)
    case completeTodo(id: Int)
    case deleteTodo(id: Int)

    var host: String { Settings.host }

    var endpoint: String {
        switch self {
        case .todos, .filteredTodos, .createTodo: "todos"
        case .todo(let id), .completeTodo(let id), .deleteTodo(let id): "todos/\(segment: id)"
        case .replaceTodo(let todo): "todos/\(segment: todo.id)"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .todos, .todo, .filteredTodos: .get
        case .createTodo: .post
        case .replaceTodo: .put
        case .completeTodo: .patch
        case .deleteTodo: .delete
        }
    }

    var parameters: [String: Any]? {
        switch self {
        case .filteredTodos(let userId, let completed): ["userId": userId, "completed": completed]
        case .completeTodo: ["completed": true]
        default: nil
        }
    }

    var body: RequestBody? {
        switch self {
        case .createTodo(let todo): .json(todo)
        case .replaceTodo(let todo): .json(todo)
        default: nil
        }
    }

    var timeout: TimeInterval? { 10 }
}

struct Todo: Codable, Sendable {
    let userId: Int
    let id: Int
    var title: String
    var completed: Bool
}

struct NewTodo: Codable, Sendable {
    let userId: Int
    let title: String
    let completed: Bool
}

/// JSONPlaceholder answers unknown ids with `{}`; our offline stub answers with an error payload
/// like most real APIs do.
struct APIError: Decodable, Sendable {
    let error: String
    let message: String
}

/// What the command line chose; read once at start-up.
enum Settings {
    /// The host given with `--host`, read once at start-up: the pattern for a host chosen when the
    /// app starts (a `static let` is initialised once, thread-safely, and is fine in Swift 6 mode).
    static let host: String = parse(Array(CommandLine.arguments.dropFirst())) ?? "https://jsonplaceholder.typicode.com"
    static var isOnline: Bool { CommandLine.arguments.contains("--host") }

    /// `nil` without `--host`; exits with a usage message for anything else it cannot use, so a
    /// typo never silently sends the demo somewhere unintended.
    private static func parse(_ arguments: [String]) -> String? {
        guard !arguments.isEmpty else { return nil }
        if arguments == ["--host"] {
            refuse("--host needs a URL after it")
        }
        guard arguments.count == 2, arguments[0] == "--host" else {
            refuse("unexpected arguments \(arguments.joined(separator: " "))")
        }
        let value = arguments[1]
        guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              let host = url.host, !host.isEmpty else {
            refuse("--host needs an http(s) URL with a host, such as https://jsonplaceholder.typicode.com; got '\(value)'")
        }
        return value
    }

    private static func refuse(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("""
            error: \(reason)
            usage: swift run example                        (offline, answers from Fixtures/)
                   swift run example --host https://jsonplaceholder.typicode.com

            """.utf8))
        exit(2)
    }
}
