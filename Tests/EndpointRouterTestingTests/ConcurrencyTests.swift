import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Concurrency and task-local isolation")
struct ConcurrencyTests {
    @Test func thousandConcurrentRequestsAreEachRecordedExactlyOnce() async throws {
        let stub = StubTransport().on(.get, "/todos/:id") { request in
            let id = Int(request.parameters["id"] ?? "") ?? -1
            return .json(Todo(userId: 1, id: id, title: "todo \(id)", completed: false))
        }
        let ids = 1...1_000
        let answered = await withTransport(stub) {
            await withTaskGroup(of: (Int, Int?).self) { group in
                for id in ids {
                    group.addTask { (id, try? await TodoAPI.todo(id: id).request(type: Todo.self).get().id) }
                }
                var answered: [Int: Int?] = [:]
                for await (id, answer) in group { answered[id] = answer }
                return answered
            }
        }
        #expect(answered.count == ids.count)
        #expect(answered.allSatisfy { $0.key == $0.value }, "every request gets its own answer")
        let recorded = stub.capturedRequests.compactMap { Int($0.path.split(separator: "/").last ?? "") }
        #expect(recorded.count == ids.count)
        #expect(Set(recorded) == Set(ids), "each id recorded exactly once")
    }

    @Test func fiftyParallelTasksEachSeeOnlyTheirOwnStub() async {
        let stubs = (0..<50).map { index in
            StubTransport().on(.get, "/todos/:id") { request in
                .json(
                    Todo(
                        userId: index, id: Int(request.parameters["id"] ?? "") ?? 0, title: "stub \(index)",
                        completed: false))
            }
        }
        let owners = await withTaskGroup(of: (Int, [Int]).self) { group in
            for (index, stub) in stubs.enumerated() {
                group.addTask {
                    await withTransport(stub) {
                        var owners: [Int] = []
                        for id in 0..<5 {
                            // Yield between requests so the tasks interleave.
                            await Task.yield()
                            let todo = try? await TodoAPI.todo(id: index * 100 + id).request(type: Todo.self).get()
                            owners.append(todo?.userId ?? -1)
                        }
                        return (index, owners)
                    }
                }
            }
            var owners: [Int: [Int]] = [:]
            for await (index, seen) in group { owners[index] = seen }
            return owners
        }
        for (index, stub) in stubs.enumerated() {
            #expect(owners[index] == Array(repeating: index, count: 5))
            #expect(stub.capturedRequests.map(\.path) == (0..<5).map { "/todos/\(index * 100 + $0)" })
        }
    }

    @Test func childTasksInheritTheTransportButTheOutsideDoesNot() async {
        let stub = StubTransport().on(.get, "/todos/1", respond: .json(Todo(userId: 1, id: 1, title: "", completed: true)))
        let insideChild = await withTransport(stub) {
            await Task { await TodoAPI.todo(id: 1).request(type: Todo.self) }.value
        }
        #expect((try? insideChild.get()) != nil)
        #expect(TaskOverride.current == nil)
        #expect(stub.requestCount == 1)
    }

    @Test func completionHandlerRequestStartedInsideWithTransportUsesTheOverride() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respond: .fixture("todo-1.json", in: TestPaths.fixtures))
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Todo, HTTPClientError>, Never>) in
            withTransport(stub) {
                _ = TodoAPI.todo(id: 1).request(type: Todo.self) { result in continuation.resume(returning: result) }
            }
        }
        #expect(try result.get().title == "enim nisi quis magna")
        #expect(stub.requestCount == 1)
    }

    @Test func completionHandlerOnAQueueInsideAsyncWithTransport() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respond: .fixture("todo-1.json", in: TestPaths.fixtures))
        let queue = DispatchQueue(label: "completion")
        let result: Result<Todo, HTTPClientError> = await withTransport(stub) {
            await withCheckedContinuation { continuation in
                TodoAPI.todo(id: 1).request(type: Todo.self, queue: queue) { continuation.resume(returning: $0) }
            }
        }
        #expect(try result.get().id == 1)
        #expect(stub.lastRequest?.path == "/todos/1")
    }

    @MainActor @Test func worksFromTheMainActorWithNonSendableState() async throws {
        let stub = StubTransport().on(.get, "/todos", respond: .json([Todo(userId: 1, id: 1, title: "a", completed: false)]))
        let model = TodoListModel()
        await withTransport(stub) { await model.load() }
        #expect(model.titles == ["a"])
    }
}

/// A main-actor view model, as apps write them; not `Sendable`.
@MainActor
final class TodoListModel {
    var titles: [String] = []

    func load() async {
        titles = (try? await TodoAPI.list(userId: 1).request(type: [Todo].self).get().map(\.title)) ?? []
    }
}
