import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import EndpointRouter
import EndpointRouterTesting

/// A todo as JSONPlaceholder and the fixtures write it.
struct Todo: Codable, Sendable, Equatable {
    var userId: Int
    var id: Int
    var title: String
    var completed: Bool
}

/// What the app sends to create a todo.
struct NewTodo: Codable, Sendable, Equatable {
    var userId: Int
    var title: String
    var completed: Bool
}

/// The application's API enum, exactly as production code would declare it: the real host and the
/// default transport. Tests reach it only through `withTransport`.
enum TodoAPI: HTTPClient {
    case list(userId: Int?)
    case todo(id: Int)
    case create(NewTodo)
    case delete(id: Int)
    case slowTodo(id: Int, timeout: TimeInterval)

    var host: String { "https://jsonplaceholder.typicode.com" }
    var endpoint: String {
        switch self {
        case .list, .create: "todos"
        case .todo(let id), .delete(let id), .slowTodo(let id, _): "todos/\(segment: id)"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .create: .post
        case .delete: .delete
        case .list, .todo, .slowTodo: .get
        }
    }
    var parameters: [String: Any]? {
        if case .list(let userId?) = self { ["userId": userId] } else { nil }
    }
    var body: RequestBody? {
        if case .create(let todo) = self { .json(todo) } else { nil }
    }
    var timeout: TimeInterval? {
        if case .slowTodo(_, let timeout) = self { timeout } else { nil }
    }
}

/// Paths found from this file, so tests run from any working directory.
enum TestPaths {
    /// `<package>/Tests/EndpointRouterTestingTests/TestSupport.swift` → `<package>`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static let fixtures = packageRoot.appendingPathComponent("Fixtures")
}

/// Runs `body` with a fresh, empty directory that is removed afterwards; each call gets its own, so
/// tests can run in parallel.
func withTemporaryDirectory<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (URL) async throws -> R
) async rethrows -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("EndpointRouterTestingTests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// A request built by hand, for tests that talk to a transport directly.
func makeRequest(
    _ method: String = "GET",
    _ url: String,
    headers: [String: String] = [:],
    body: Data? = nil,
    timeout: TimeInterval? = nil
) throws -> URLRequest {
    guard let parsed = URL(string: url) else { throw TestFailure("not a URL: \(url)") }
    var request = URLRequest(url: parsed)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    if let timeout { request.timeoutInterval = timeout }
    return request
}

/// A failure of the test's own setup.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension HTTPClientError {
    /// The `URLError` of a `.transport` failure, else `nil`.
    var urlError: URLError? {
        if case .transport(let error) = self { error } else { nil }
    }
}

/// The error a transport threw, or `nil` when it answered.
func transportError(_ transport: any HTTPTransport, _ request: URLRequest) async -> HTTPClientError? {
    do {
        _ = try await transport.send(request)
        return nil
    } catch {
        return error
    }
}

/// Seconds elapsed while running `body`.
func measure<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async rethrows -> (result: R, seconds: Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    let elapsed = clock.now - start
    return (result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}
