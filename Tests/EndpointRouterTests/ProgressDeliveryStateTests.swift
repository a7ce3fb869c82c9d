import Dispatch
import Foundation
import Testing

@testable import EndpointRouter

/// ``ProgressDeliveryState``'s transitions, without a closure or a continuation, and the reporter's
/// wait for its last delivery ending at the call's deadline or its cancellation (a closure that
/// never returns must not hold the call).
@Suite("Progress delivery state")
struct ProgressDeliveryStateTests {
    typealias Machine = ProgressDeliveryState<String>

    static func value(_ completed: Int64, of total: Int64? = 10) -> TransferProgress {
        TransferProgress(completedBytes: completed, expectedBytes: total)
    }

    static func delivered(_ step: Machine.Step) -> TransferProgress? {
        if case .deliver(let value) = step { value } else { nil }
    }

    static func resumed(_ step: Machine.Step) -> [String]? {
        if case .end(let waiters) = step { waiters } else { nil }
    }

    @Test func aReportStartsOneDeliveryAndLaterOnesCoalesceToTheNewest() {
        var machine = Machine()
        let event1 = machine.reported(Self.value(1))
        #expect(event1)
        let event2 = machine.reported(Self.value(2))
        #expect(!event2, "a second delivery started while one runs")
        let event3 = machine.reported(Self.value(3))
        #expect(!event3)
        let event4 = machine.nextStep()
        #expect(Self.delivered(event4) == Self.value(3))
        let event5 = machine.nextStep()
        #expect(Self.resumed(event5) == [])
        let event6 = machine.reported(Self.value(4))
        #expect(event6, "an idle reporter starts a delivery again")
    }

    @Test func valuesThatDoNotMoveForwardAreDropped() {
        var machine = Machine()
        let event1 = machine.reported(Self.value(5))
        #expect(event1)
        let event2 = machine.nextStep()
        #expect(Self.delivered(event2) == Self.value(5))
        let event3 = machine.nextStep()
        #expect(Self.resumed(event3) == [])
        let event4 = machine.reported(Self.value(4))
        #expect(!event4, "backwards")
        let event5 = machine.reported(Self.value(5))
        #expect(!event5, "the same value again")
        let event6 = machine.reported(Self.value(5, of: 20))
        #expect(event6, "the same bytes with news of the total")
    }

    @Test func finishingWhileIdleNeedsNoWaitAndDropsLaterReports() {
        var machine = Machine()
        let event1 = machine.finishRequested(deliveringLast: true, id: 1, "caller")
        #expect(event1 == "caller")
        let event2 = machine.reported(Self.value(1))
        #expect(!event2)
        let event3 = machine.waitEnded(1)
        #expect(event3 == nil)
    }

    @Test func finishingWithTheLastDeliversItThenWakesTheWaiter() {
        var machine = Machine()
        let event1 = machine.reported(Self.value(1))
        #expect(event1)
        let event2 = machine.nextStep()
        #expect(Self.delivered(event2) == Self.value(1))
        let event3 = machine.reported(Self.value(10))
        #expect(!event3)
        let event4 = machine.finishRequested(deliveringLast: true, id: 1, "caller")
        #expect(event4 == nil)
        let event5 = machine.reported(Self.value(11, of: 11))
        #expect(!event5, "a report after finish was accepted")
        let event6 = machine.nextStep()
        #expect(Self.delivered(event6) == Self.value(10))
        let event7 = machine.nextStep()
        #expect(Self.resumed(event7) == ["caller"])
        let event8 = machine.waitEnded(1)
        #expect(event8 == nil, "the waiter would be resumed twice")
    }

    @Test func finishingWithoutTheLastDropsThePendingValue() {
        var machine = Machine()
        let event1 = machine.reported(Self.value(1))
        #expect(event1)
        let event2 = machine.nextStep()
        #expect(Self.delivered(event2) == Self.value(1))
        let event3 = machine.reported(Self.value(2))
        #expect(!event3)
        let event4 = machine.finishRequested(deliveringLast: false, id: 1, "caller")
        #expect(event4 == nil)
        let event5 = machine.nextStep()
        #expect(Self.resumed(event5) == ["caller"])
    }

    /// The deadline (or a cancellation) ends the wait while the closure runs: the waiter is resumed
    /// once, the pending last value is never delivered, and the running delivery then just ends.
    @Test func anEarlyEndOfTheWaitResumesTheWaiterAndNothingIsDeliveredAfter() {
        var machine = Machine()
        let event1 = machine.reported(Self.value(1))
        #expect(event1)
        let event2 = machine.nextStep()
        #expect(Self.delivered(event2) == Self.value(1))
        let event3 = machine.reported(Self.value(10))
        #expect(!event3)
        let event4 = machine.finishRequested(deliveringLast: true, id: 7, "caller")
        #expect(event4 == nil)
        let event5 = machine.waitEnded(7)
        #expect(event5 == "caller")
        let event6 = machine.waitEnded(7)
        #expect(event6 == nil, "the waiter would be resumed twice")
        let event7 = machine.nextStep()
        #expect(Self.resumed(event7) == [], "the pending value was delivered after the wait ended")
        let event8 = machine.reported(Self.value(11))
        #expect(!event8)
        let event9 = machine.finishRequested(deliveringLast: true, id: 8, "again")
        #expect(event9 == "again")
    }

    /// A closure that blocks until released (at most 10 s), recording what it saw.
    final class BlockingClosure: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        private let seen = Locked<(values: [TransferProgress], running: Int)>(([], 0))

        var handler: @Sendable (TransferProgress) -> Void {
            { progress in
                self.seen.withLock {
                    $0.values.append(progress)
                    $0.running += 1
                }
                // Passed on, so every later delivery goes through once released.
                if self.gate.wait(timeout: .now() + 10) == .success { self.gate.signal() }
                self.seen.withLock { $0.running -= 1 }
            }
        }

        func release() { gate.signal() }
        var values: [TransferProgress] { seen.withLock { $0.values } }
        var isRunning: Bool { seen.withLock { $0.running > 0 } }
    }

    /// The reporter's wait ends at the deadline while the closure is still blocked; the pending
    /// total is not delivered once the closure returns.
    @Test func theReportersWaitEndsAtTheDeadlineWhileTheClosureBlocks() async {
        let closure = BlockingClosure()
        defer { closure.release() }
        let reporter = ProgressReporter(closure.handler)
        reporter.report(Self.value(1))
        guard await eventually(within: 5, { closure.isRunning }) else {
            Issue.record("the first report was never delivered")
            return
        }
        reporter.report(Self.value(10))
        await reporter.finish(deliveringLast: true, by: .now + .milliseconds(100))
        #expect(closure.isRunning, "finish waited for the blocked closure")
        closure.release()
        #expect(await eventually(within: 5, { !closure.isRunning }))
        try? await Task.sleep(for: .milliseconds(100))
        #expect(closure.values == [Self.value(1)], "a value was delivered after finish returned")
    }

    /// Cancelling the caller ends its wait for a blocked closure, far before the deadline.
    @Test func cancellingTheCallerEndsTheWaitForABlockedClosure() async {
        let closure = BlockingClosure()
        defer { closure.release() }
        let reporter = ProgressReporter(closure.handler)
        reporter.report(Self.value(1))
        guard await eventually(within: 5, { closure.isRunning }) else {
            Issue.record("the first report was never delivered")
            return
        }
        let finishing = Task { await reporter.finish(deliveringLast: true, by: .now + .seconds(60)) }
        try? await Task.sleep(for: .milliseconds(50))
        finishing.cancel()
        let finished: Void? = await boundedValue(of: finishing, within: 5)
        #expect(finished != nil, "finish did not return on cancellation")
        #expect(closure.isRunning, "finish waited for the blocked closure")
    }
}
