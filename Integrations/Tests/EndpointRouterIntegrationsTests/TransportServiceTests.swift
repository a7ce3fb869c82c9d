import EndpointRouter
import EndpointRouterServiceLifecycle
import Foundation
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

@Suite("TransportService: a transport shut down with the service group")
struct TransportServiceTests {
    /// Counts calls to a shut-down closure.
    actor Shutdowns {
        var count = 0
        func record() { count += 1 }
    }

    @Test("The transport is shut down when the graceful shutdown begins, not before")
    func gracefulShutdown() async throws {
        let shutdowns = Shutdowns()
        let service = TransportService(shutdown: { await shutdowns.record() })
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await service.run() }
                try await Task.sleep(for: .milliseconds(50))
                #expect(await shutdowns.count == 0, "running: not shut down yet")
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(await shutdowns.count == 1)
    }

    @Test("A cancelled group shuts the transport down too")
    func cancelled() async throws {
        let shutdowns = Shutdowns()
        let service = TransportService(shutdown: { await shutdowns.record() })
        let task = Task { try await service.run() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        try await task.value
        #expect(await shutdowns.count == 1)
    }

    @Test("A URLSessionTransport shut down by the service refuses new calls with a .transport error")
    func urlSessionTransport() async throws {
        let transport = URLSessionTransport()
        let service = TransportService(transport)
        try await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            try await service.run()
        }
        let probe = Probe(host: "http://127.0.0.1:9", transport: transport)
        let result = await probe.request(type: [String: Int].self)
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected a .transport error, got \(result)")
            return
        }
        #expect(error.code == .resourceUnavailable)
    }
}
