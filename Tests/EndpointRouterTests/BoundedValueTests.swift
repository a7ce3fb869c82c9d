import Dispatch
import Testing

@testable import EndpointRouter

/// `boundedValue(of:within:)`, the one bounded wait of this target: it must return at its bound
/// even when the task ignores its cancellation (the task-group helpers it replaced waited for such
/// a task to end).
@Suite("boundedValue(of:within:)")
struct BoundedValueTests {
    @Test func aTaskThatEndsInTimeGivesItsValue() async {
        let task = Task { 42 }
        #expect(await boundedValue(of: task, within: 5) == 42)
    }

    @Test func aTaskThatIgnoresCancellationIsNotWaitedFor() async {
        let ended = Locked(false)
        let task = Task { () -> Int in
            // Deaf to cancellation: resumed by Dispatch 3 s later, whatever happens meanwhile.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + 3) { continuation.resume() }
            }
            ended.withLock { $0 = true }
            return 1
        }
        #expect(await boundedValue(of: task, within: 0.1) == nil)
        #expect(!ended.withLock { $0 }, "the wait lasted until the task ended")
        #expect(task.isCancelled)
    }
}
