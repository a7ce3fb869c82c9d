import EndpointRouter
import Foundation
import HTTPTestServer
import Testing

/// The pattern the README shows for a host chosen at run time (staging or production, a host read
/// at start-up): Swift 6 rejects a mutable `static var`, so the host lives in a small lock-guarded
/// object the service reads on every call.
@Suite("A host configured at run time")
struct ConfigurableHostTests {
    /// Where the API lives; safe to read from any thread and to change while requests run.
    final class APIEnvironment: @unchecked Sendable {
        // @unchecked: every access to `host` goes through `lock`.
        private let lock = NSLock()
        private var host: String

        init(host: String) { self.host = host }

        var current: String { lock.withLock { host } }
        func use(_ newHost: String) { lock.withLock { host = newHost } }
    }

    enum StatusAPI: HTTPClient {
        case ping(APIEnvironment)

        var host: String {
            switch self {
            case .ping(let environment): environment.current
            }
        }
        var endpoint: String { "ping" }
    }

    @Test func switchingTheHostSendsTheNextCallToTheNewServer() async throws {
        let staging = try TestServer(response: .text("staging"))
        defer { staging.stop() }
        let production = try TestServer(response: .text("production"))
        defer { production.stop() }
        let environment = APIEnvironment(host: staging.baseURL)

        #expect(try await StatusAPI.ping(environment).request(type: String.self).get() == "staging")
        environment.use(production.baseURL)
        #expect(try await StatusAPI.ping(environment).request(type: String.self).get() == "production")
        #expect(staging.requests.count == 1)
        #expect(production.requests.count == 1)
    }

    @Test func switchingWhileCallsRunNeverMixesHostAndPath() async throws {
        let first = try TestServer(response: .text("first"))
        defer { first.stop() }
        let second = try TestServer(response: .text("second"))
        defer { second.stop() }
        let environment = APIEnvironment(host: first.baseURL)
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask {
                    if index.isMultiple(of: 10) { environment.use(index.isMultiple(of: 20) ? first.baseURL : second.baseURL) }
                    return try await StatusAPI.ping(environment).request(type: String.self, timeout: 10).get()
                }
            }
            var answers: [String] = []
            for try await answer in group { answers.append(answer) }
            #expect(answers.count == 40)
            #expect(Set(answers).isSubset(of: ["first", "second"]))
        }
        #expect(first.requests.count + second.requests.count == 40)
        #expect((first.requests + second.requests).allSatisfy { $0.path == "/ping" })
    }
}
