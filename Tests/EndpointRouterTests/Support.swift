import Foundation
import HTTPTestServer

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An endpoint whose every property is a stored value, so each test row can say exactly what it sets.
struct TestEndpoint: HTTPClient {
    var host = "https://api.example.com"
    var path = ""
    var endpoint = ""
    var method: RequestMethod = .get
    var parameters: [String: Any]?
    var headers: [String: String]?
    var parameterEncoding: ParameterEncoding = .automatic
    var queryStyle: QueryStyle = .default
    var body: EndpointBody?
    var timeout: TimeInterval?
    var acceptableStatusCodes: Range<Int> = 200..<300
    var maxResponseSize: Int? = 64 * 1024 * 1024
    var redirectPolicy = RedirectPolicy()
    var transport: any HTTPTransport = DefaultTransport.shared
    var middlewares: [any HTTPMiddleware] = []
}

/// A minimal custom transport answering from a closure, as a user would write one: it performs one
/// exchange and delivers the body into the library's sink. `withContext:` also hands the closure the
/// call's ``CallContext``, for tests of what the pipeline tells a transport.
struct ClosureTransport: HTTPTransport {
    let handler: @Sendable (OutgoingRequest, CallContext) async throws(HTTPClientError) -> IncomingResponse

    init(_ handler: @escaping @Sendable (OutgoingRequest) async throws(HTTPClientError) -> IncomingResponse) {
        self.handler = { request, _ async throws(HTTPClientError) in try await handler(request) }
    }

    init(withContext handler: @escaping @Sendable (OutgoingRequest, CallContext) async throws(HTTPClientError) -> IncomingResponse) {
        self.handler = handler
    }

    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        let response = try await handler(request, context)
        try sink.receive(response.head)
        try sink.write(response.body)
        return response.head
    }
}

extension URLRequest {
    var bodyText: String? { httpBody.map { String(decoding: $0, as: UTF8.self) } }
}

extension OutgoingRequest {
    var bodyText: String? { bodyData.map { String(decoding: $0, as: UTF8.self) } }
}

/// A context for calling a transport directly, with `seconds` to go.
func testContext(seconds: Double = 10, endpoint: String = "Test.direct") -> CallContext {
    CallContext(endpointName: endpoint, deadline: .now + .milliseconds(Int(seconds * 1000)))
}

/// The directory of shared payloads, found from this file so tests run from any working directory.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: fixturesDirectory.appendingPathComponent(name))
}

struct Todo: Codable, Equatable, Sendable {
    let userId: Int
    let id: Int
    let title: String
    let completed: Bool
}

struct APIError: Codable, Equatable, Sendable {
    let error: String
    let message: String
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// `task`'s value, or `nil` when it has not ended within `seconds`: the task is cancelled then, and
/// this returns at once rather than waiting for it to end, so that a regression fails its test
/// instead of stalling the run. (A task group would not do: leaving it awaits every child, and a
/// child awaiting a task that ignores cancellation never ends.)
func boundedValue<T: Sendable>(of task: Task<T, Never>, within seconds: Double) async -> T? {
    let waiter = Locked<CheckedContinuation<T?, Never>?>(nil)
    let take: @Sendable () -> CheckedContinuation<T?, Never>? = {
        waiter.withLock { waiter -> CheckedContinuation<T?, Never>? in
            defer { waiter = nil }
            return waiter
        }
    }
    var timer: Task<Void, Never>?
    let value = await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        waiter.withLock { $0 = continuation }
        timer = Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            guard !Task.isCancelled, let waiting = take() else { return }
            task.cancel()
            waiting.resume(returning: nil)
        }
        Task {
            let value = await task.value
            take()?.resume(returning: value)
        }
    }
    timer?.cancel()
    return value
}

extension TestServer {
    /// Waits without blocking a thread: the cooperative pool has as many threads as cores (2 here),
    /// so a blocking wait in two parallel tests would stall every other test.
    func received(_ count: Int, within seconds: Double = 5) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        while requests.count < count {
            if clock.now > deadline { return false }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return true
    }
}

/// Runs blocking work (generating large files, spawning a process) on a thread of its own, so it
/// never holds one of the cooperative pool's few threads while timing tests run in parallel.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// SplitMix64: a seeded generator, so a failing run can be replayed with its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
