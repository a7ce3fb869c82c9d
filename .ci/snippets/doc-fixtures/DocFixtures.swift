// The world the examples in the library's `///` doc comments live in: the services, models and
// values they name without declaring. .ci/check-snippets compiles it as a module of its own that
// every doc-comment block imports, so a block that declares one of these names itself (its own
// `TodoAPI`, say) simply shadows it. Nothing here is API: only what makes a short example complete.
import EndpointRouter
import EndpointRouterTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: Models

public struct Todo: Codable, Sendable, Equatable {
    public var userId: Int
    public var id: Int
    public var title: String
    public var completed: Bool
    public init(userId: Int = 1, id: Int, title: String, completed: Bool = false) {
        self.userId = userId
        self.id = id
        self.title = title
        self.completed = completed
    }
}

public struct NewTodo: Codable, Sendable, Equatable {
    public var userId: Int
    public var title: String
    public var completed: Bool
    public init(userId: Int = 1, title: String, completed: Bool = false) {
        self.userId = userId
        self.title = title
        self.completed = completed
    }
}

public struct APIError: Codable, Sendable { public var message: String; public init(message: String) { self.message = message } }
public struct Media: Codable, Sendable { public var id: String }
public struct User: Codable, Sendable { public var login: String }
public struct Repo: Codable, Sendable { public var name: String }
public struct Item: Codable, Sendable { public var id: Int }
public struct ItemPage: Codable, Sendable { public var items: [Item]; public var nextCursor: String? }
public struct LogLine: Codable, Sendable { public var message: String; public init(message: String) { self.message = message } }
public struct Row: Codable, Sendable { public var id: Int }
public struct Update: Codable, Sendable { public var text: String }
public struct Token: Codable, Sendable { public var value: String }
public struct Hit: Codable, Sendable { public var title: String }
public struct Post: Codable, Sendable, Equatable { public var text: String }

// MARK: Services

/// Gives every example service a host and an endpoint, so each declares only what it shows.
public protocol DocService: HTTPClient {}

extension DocService {
    public var host: String { "https://api.example.com" }
    public var endpoint: String { "items" }
}

public enum API: DocService, Sendable {
    case todo(Int), deleteTodo(Int), search(String)
}

public enum TodoAPI: DocService, Sendable {
    case list(userId: Int?), todo(id: Int), create(NewTodo)
    public var host: String { "https://jsonplaceholder.typicode.com" }
}

public enum GitHubAPI: DocService, Sendable { case user(String), repos(org: String) }
public enum FeedAPI: DocService, Sendable { case items(cursor: String?), timeline, live }
public enum FilesAPI: DocService, Sendable { case archive, report(id: Int) }
public enum MediaAPI: DocService, Sendable { case upload(URL), live }
public enum LogsAPI: DocService, Sendable { case tail(app: String) }
public enum ChatAPI: DocService, Sendable { case completions(String), chat }
public enum ExportAPI: DocService, Sendable { case rows }
public enum AuthAPI: DocService, Sendable { case renewal }

// MARK: Values an example takes as given

public let stub = StubTransport()
public let live = URLSessionTransport.shared
public let fixtures = URL(fileURLWithPath: "Fixtures")
public let recordings = URL(fileURLWithPath: "recordings")
public let documents = URL(fileURLWithPath: "documents")
public let destination = URL(fileURLWithPath: "archive.zip")
public let file = URL(fileURLWithPath: "report.pdf")
public let video = URL(fileURLWithPath: "video.mp4")
public let healthURL = URL(fileURLWithPath: "/health")
public let jpegData = Data()
public let pngBytes = Data()
public let prompt = "Hello"
public let text = "swift"
public let id = "7f3a"
public let token = "token"
public let secret = "secret"
public let key = "key"
public let owner = "swiftlang"
public let repo = "swift"
public let todos: [Todo] = []
/// A response body in pieces, as a transport receives it.
public let body = AsyncThrowingStream<Data, any Error> { $0.finish() }

public func show(_ value: Any) {}
public func showNotFound() {}
public func open(_ url: URL) {}
public func log(_ line: String) {}

public enum Keychain {
    public static func token() async -> String? { nil }
    public static func save(_ token: String) async {}
}

public enum Session {
    public static func renew() async -> CredentialRefresh { .loggedOut }
}

public enum Telemetry { public static func record(_ metrics: CallMetrics) {} }
public enum Metrics { public static func record(_ metrics: CallMetrics) {} }

public final class Player: Sendable { public func enqueue(_ data: Data) {} }
public let player = Player()

@MainActor public final class Model { public func reload() async {} }
@MainActor public let model = Model()

public let result: Result<Todo, HTTPClientError> = .failure(.timedOut)
public let response = IncomingResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data())
public let event = ServerSentEvent(data: "{\"text\": \"hi\"}")
public let events = [ServerSentEvent(event: "update", data: "hi", id: "42")]
public let host = "api.example.com"
public let head = ResponseHead(statusCode: 200, headers: [:], url: URL(fileURLWithPath: "/"))

/// A sink that keeps nothing, for examples of what a transport does with one.
public struct DiscardingSink: ResponseBodySink {
    public func receive(_ head: ResponseHead) throws(HTTPClientError) {}
    public func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {}
}
public let sink: any ResponseBodySink = DiscardingSink()

public final class Label: @unchecked Sendable { public var text: String? }
public let label = Label()

public enum Renewal: Sendable { case ok(String), revoked, offline }
public struct SessionClient: Sendable { public func renewToken() async -> Renewal { .revoked } }
public let session = SessionClient()

extension AuthAPI {
    public static func renew() -> AuthAPI { .renewal }
}

public let recorder = RecordingTransport(wrapping: live, directory: recordings)

extension FeedAPI {
    /// The store the examples' FeedAPI declares, as the documentation recommends: a `static let`.
    public static let credentials = CredentialStore(
        credential: { await Keychain.token().map(Credential.bearer) }, refresh: { _ in await Session.renew() })
}
