import Foundation
import Testing

@testable import EndpointRouter

extension Serialized {
    /// The process-wide deadline timer: actions run once their instant has passed and never before,
    /// a cancelled one never runs, an earlier deadline re-arms the timer, and cancelled slots do not
    /// pile up.
    @Suite("Deadline timer")
    struct DeadlineTimerTests {
        @Test func actionsRunInOrderAndNeverEarly() async throws {
            let start = ContinuousClock.now
            let fired = Locked<[(Int, ContinuousClock.Instant)]>([])
            // Scheduled out of order, so the heap, not the call order, decides.
            for (index, offset) in [(2, 120), (0, 40), (1, 80)] {
                _ = DeadlineTimer.shared.schedule(at: start + .milliseconds(offset)) {
                    fired.withLock { $0.append((index, ContinuousClock.now)) }
                }
            }
            try await waitUntil { fired.withLock { $0.count } == 3 }
            let runs = fired.withLock { $0 }
            #expect(runs.map(\.0) == [0, 1, 2])
            for (index, at) in runs {
                let due = start + .milliseconds([40, 80, 120][index])
                #expect(at >= due, "action \(index) ran \(due - at) early")
                #expect(at - due < .milliseconds(500), "action \(index) ran \(at - due) late")
            }
        }

        @Test func aCancelledActionNeverRuns() async throws {
            let ran = Locked(false)
            let token = DeadlineTimer.shared.schedule(at: .now + .milliseconds(30)) { ran.withLock { $0 = true } }
            DeadlineTimer.shared.cancel(token)
            let witness = Locked(false)
            _ = DeadlineTimer.shared.schedule(at: .now + .milliseconds(60)) { witness.withLock { $0 = true } }
            try await waitUntil { witness.withLock { $0 } }
            #expect(!ran.withLock { $0 })
        }

        /// The timer is armed for a far deadline; a nearer one scheduled after it must still fire on time.
        @Test func anEarlierDeadlineReArmsTheTimer() async throws {
            let far = DeadlineTimer.shared.schedule(at: .now + .seconds(30)) {}
            defer { DeadlineTimer.shared.cancel(far) }
            let start = ContinuousClock.now
            let ran = Locked<ContinuousClock.Instant?>(nil)
            _ = DeadlineTimer.shared.schedule(at: start + .milliseconds(50)) { ran.withLock { $0 = .now } }
            try await waitUntil { ran.withLock { $0 } != nil }
            let after = try #require(ran.withLock { $0 }) - start
            #expect(after >= .milliseconds(50) && after < .milliseconds(800), "ran after \(after)")
        }

        /// 20,000 quick calls with a 60 s deadline each leave a bounded number of slots behind, not
        /// 20,000 (suites running beside this one may hold a few of their own).
        @Test func cancelledSlotsAreCompacted() {
            for _ in 0..<20_000 {
                let token = DeadlineTimer.shared.schedule(at: .now + .seconds(60)) {}
                DeadlineTimer.shared.cancel(token)
            }
            #expect(DeadlineTimer.shared.heapCount < 2_000, "the heap holds \(DeadlineTimer.shared.heapCount) slots")
        }

        /// Polls `condition` for up to 10 s, so a regression fails instead of hanging.
        private func waitUntil(_ condition: () -> Bool) async throws {
            let limit = ContinuousClock.now + .seconds(10)
            while !condition() {
                guard ContinuousClock.now < limit else {
                    Issue.record("condition not met within 10 s")
                    return
                }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }
}
