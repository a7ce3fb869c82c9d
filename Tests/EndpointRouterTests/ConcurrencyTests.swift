import Dispatch
import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Serialized {
    @Suite("Concurrency: completion handlers, cancellation, actors")
    struct ConcurrencyTests {
        /// Counts deliveries so "exactly once" can be asserted.
        final class Deliveries<Value: Sendable>: Sendable {
            private let values = Locked<[Value]>([])
            func append(_ value: Value) { values.withLock { $0.append(value) } }
            var all: [Value] { values.withLock { $0 } }
        }

        @Test func completionHandlerRunsOnceOnTheGivenQueue() async throws {
            let server = try TestServer(response: .status(200, body: try fixture("todo-1.json")))
            defer { server.stop() }
            let queue = DispatchQueue(label: "delivery")
            let key = DispatchSpecificKey<String>()
            queue.setSpecific(key: key, value: "delivery")
            let deliveries = Deliveries<(Result<Todo, HTTPClientError>, String?)>()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                TestEndpoint(host: server.baseURL, endpoint: "todos/1").request(type: Todo.self, queue: queue) { result in
                    deliveries.append((result, DispatchQueue.getSpecific(key: key)))
                    done.resume()
                }
            }
            try await Task.sleep(nanoseconds: 100_000_000)
            #expect(deliveries.all.count == 1)
            #expect(try deliveries.all.first?.0.get().id == 1)
            #expect(deliveries.all.first?.1 == "delivery")
        }

        @Test func handleCancelDeliversCancelledOnce() async throws {
            let server = try TestServer(response: .hang)
            defer { server.stop() }
            let deliveries = Deliveries<Result<Data, HTTPClientError>>()
            let delivered = AsyncStream<Void>.makeStream()
            let handle = TestEndpoint(host: server.baseURL, endpoint: "slow").request(type: Data.self) { result in
                deliveries.append(result)
                delivered.continuation.yield()
            }
            #expect(await server.received(1))
            let clock = ContinuousClock()
            let cancelledAt = clock.now
            handle.cancel()
            handle.cancel()
            #expect(handle.isCancelled)
            var iterator = delivered.stream.makeAsyncIterator()
            await iterator.next()
            #expect(clock.now - cancelledAt < .milliseconds(500))
            try await Task.sleep(nanoseconds: 100_000_000)
            #expect(deliveries.all.count == 1)
            #expect(deliveries.all.first?.failure == .cancelled)
        }

        @Test func completionHandlerReportsBuildErrorsWithoutSending() async {
            let deliveries = Deliveries<Result<Data, HTTPClientError>>()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                TestEndpoint(host: "not a url", endpoint: "x").request(type: Data.self) { result in
                    deliveries.append(result)
                    done.resume()
                }
            }
            guard case .badURL = deliveries.all.first?.failure else {
                Issue.record("expected .badURL, got \(deliveries.all)")
                return
            }
        }

        @MainActor
        final class TodoViewModel {
            var title = ""
            var error: HTTPClientError?
            let api: TestEndpoint

            init(api: TestEndpoint) { self.api = api }

            func load() async {
                switch await api.request(type: Todo.self) {
                case .success(let todo): title = todo.title
                case .failure(let error): self.error = error
                }
            }
        }

        @Test @MainActor func mainActorViewModelCanCallAService() async throws {
            let server = try TestServer(response: .json(#"{"userId":1,"id":1,"title":"from main","completed":true}"#))
            defer { server.stop() }
            let model = TodoViewModel(api: TestEndpoint(host: server.baseURL, endpoint: "todos/1"))
            await model.load()
            #expect(model.title == "from main")
            #expect(model.error == nil)
        }
    }
}
