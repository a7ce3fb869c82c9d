import Foundation
import Testing

@testable import EndpointRouter

/// ``StreamSinkState``'s idle timeout on the call's clock (a test's virtual one): the events carry
/// that clock's instant, and `wake(onClock: true)` counts from it, not from real time.
struct StreamSinkStateClockTests {
    typealias Machine = StreamSinkState<Int, Int>

    @Test func theIdleTimeoutOnTheClockCountsFromTheLastActivityOnIt() {
        // An instant far from real time, as a virtual clock's is after it moved.
        let clockStart = ContinuousClock.now + .seconds(1_000)
        var machine = Machine(capacity: 4)
        _ = machine.headReceived(ResponseHead(statusCode: 200), clockNow: clockStart)
        #expect(machine.wake(idle: .seconds(2), deadline: nil, now: clockStart, onClock: true) == clockStart + .seconds(2))
        _ = machine.pieceReceived(Data("ab".utf8), clockNow: clockStart + .seconds(1))
        #expect(machine.wake(idle: .seconds(2), deadline: nil, now: clockStart, onClock: true) == clockStart + .seconds(3))
        // The total deadline on the clock comes first when it is earlier.
        let deadline = clockStart + .milliseconds(2_500)
        #expect(machine.wake(idle: .seconds(2), deadline: deadline, now: clockStart, onClock: true) == deadline)
        // Real time is kept beside it, for the real watchdog.
        #expect(machine.wake(idle: .seconds(2), deadline: nil, now: .now) == machine.lastActivity + .seconds(2))
        _ = machine.closed(.timedOut, keepingBuffered: true)
        #expect(machine.wake(idle: .seconds(2), deadline: deadline, now: clockStart, onClock: true) == nil)
    }
}
