import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
    var method: RequestMethod {
        switch self {
        case .create: .post
        case .delete: .delete
        case .list, .todo, .slowTodo: .get
        }
    }
    var parameters: [String: Any]? {
        if case .list(let userId?) = self { ["userId": userId] } else { nil }
    }
    var body: EndpointBody? {
        if case .create(let todo) = self { .json(todo) } else { nil }
    }
    var timeout: TimeInterval? {
        if case .slowTodo(_, let timeout) = self { timeout } else { nil }
    }
}

/// Endpoints with larger bodies: downloads, size limits and uploads from a file. The short `timeout`
/// is the library's deadline for the whole call, so a regression fails within it instead of hanging.
enum FilesAPI: HTTPClient {
    case archive
    case missing
    case limited(maxResponseSize: Int)
    case upload(URL)

    var host: String { "https://files.example.com" }
    var endpoint: String {
        switch self {
        case .archive, .limited: "archive.bin"
        case .missing: "missing.bin"
        case .upload: "uploads"
        }
    }
    var method: RequestMethod {
        if case .upload = self { .post } else { .get }
    }
    var body: EndpointBody? {
        if case .upload(let file) = self { .file(file, contentType: "application/octet-stream") } else { nil }
    }
    var timeout: TimeInterval? { 10 }
    var maxResponseSize: Int? {
        if case .limited(let size) = self { size } else { 64 * 1024 * 1024 }
    }
}

/// `count` bytes that are not UTF-8 text and differ at every offset within a piece, so a lost,
/// repeated or reordered piece shows.
func payload(_ count: Int) -> Data {
    // 0xFF can never occur in UTF-8, so a recording has to store this body as base64.
    Data([0xFF] + (1..<max(1, count)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 16) }).prefix(count)
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
    _ method: RequestMethod = .get,
    _ url: String,
    headers: HeaderFields = [:],
    body: Data? = nil
) throws -> OutgoingRequest {
    guard let parsed = URL(string: url) else { throw TestFailure("not a URL: \(url)") }
    return OutgoingRequest(method: method, url: parsed, headers: headers, body: body.map { .data($0) })
}

/// A context for calling a transport directly, with `seconds` to go.
func makeContext(seconds: Double = 10, endpoint: String = "Test.direct", attempt: Int = 1) -> CallContext {
    CallContext(endpointName: endpoint, attempt: attempt, deadline: .now + .milliseconds(Int(seconds * 1000)))
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

/// The error a transport threw into `sink`, or `nil` when it answered.
func sendError(
    _ transport: any HTTPTransport, _ request: OutgoingRequest, into sink: any ResponseBodySink,
    context: CallContext = makeContext()
) async -> HTTPClientError? {
    do {
        _ = try await transport.send(request, context: context, sink: sink)
        return nil
    } catch {
        return error
    }
}

/// The error a transport threw, or `nil` when it answered.
func transportError(
    _ transport: any HTTPTransport, _ request: OutgoingRequest,
    context: CallContext = makeContext()
) async -> HTTPClientError? {
    do {
        _ = try await transport.exchange(request, context: context)
        return nil
    } catch {
        return error
    }
}

/// A sink that accepts `limit` bytes and refuses the write that would cross it, as the library's
/// sink does past `maxResponseSize`; it counts what it saw, to check that a transport stops.
final class RefusingSink: ResponseBodySink {
    private struct Seen {
        var heads = 0
        var writes = 0
        var accepted = Data()
    }

    let limit: Int
    private let seen = Locked(Seen())

    init(limit: Int) { self.limit = limit }

    func receive(_ head: ResponseHead) throws(HTTPClientError) {
        seen.withLock { $0.heads += 1 }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        let refused = seen.withLock { seen -> Bool in
            seen.writes += 1
            guard seen.accepted.count + bytes.count <= limit else { return true }
            seen.accepted.append(contentsOf: bytes)
            return false
        }
        if refused { throw .responseTooLarge(limit: limit) }
    }

    var heads: Int { seen.withLock { $0.heads } }
    var writes: Int { seen.withLock { $0.writes } }
    var accepted: Data { seen.withLock { $0.accepted } }
}

/// Runs `operation` for at most `seconds`: a regression that hangs then fails its test (the result
/// is `nil` and an issue is recorded) instead of stalling the whole run. The operation is cancelled
/// at the limit; if it ignores that, it is left behind.
func bounded<R: Sendable>(
    _ seconds: Double = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async -> R
) async -> R? {
    let result: R? = await withCheckedContinuation { continuation in
        let first = FirstResult(continuation)
        let work = Locked<Task<Void, Never>?>(nil)
        let timer = Task {
            guard (try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))) != nil else { return }
            work.withLock { $0 }?.cancel()
            first.resume(nil)
        }
        work.withLock {
            $0 = Task {
                let value = await operation()
                timer.cancel()
                first.resume(value)
            }
        }
    }
    if result == nil { Issue.record("did not finish within \(seconds) s", sourceLocation: sourceLocation) }
    return result
}

/// Resumes a continuation once, with whichever result comes first.
private final class FirstResult<R: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<R?, Never>?>

    init(_ continuation: CheckedContinuation<R?, Never>) {
        self.continuation = Locked(continuation)
    }

    func resume(_ value: R?) {
        continuation.withLock { $0.take() }?.resume(returning: value)
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

/// Whether `condition` holds within `seconds`, asked after each yield and short pause.
func eventually(within seconds: Double = 5, _ condition: @Sendable () -> Bool) async -> Bool {
    let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// TodoAPI with a retry, as a service with a retry policy declares it.
enum RetryingTodoAPI: HTTPClient {
    case todo(id: Int)

    var host: String { "https://jsonplaceholder.typicode.com" }
    var endpoint: String {
        switch self {
        case .todo(let id): "todos/\(segment: id)"
        }
    }
    var middlewares: [any HTTPMiddleware] { [RetryMiddleware()] }
}
