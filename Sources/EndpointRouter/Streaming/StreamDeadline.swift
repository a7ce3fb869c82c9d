import Foundation

/// A stream's total deadline (``StreamLimits/totalTimeout``), kept twice as the call's deadline is:
/// on the call's clock, for the transport's waits, the head phase and the watchdog's alarm (a test's
/// virtual clock ends the stream when it passes it), and in real time, for the timers that bound the
/// stream whatever that clock does, so a virtual clock nobody advances cannot hold a stream for ever.
/// On the system clock both are the same instant.
struct StreamDeadline: Sendable {
    /// On the call's clock.
    let onClock: ContinuousClock.Instant
    /// In real time.
    let real: ContinuousClock.Instant

    /// `seconds` from now, on `clock` and in real time.
    init(after seconds: TimeInterval, on clock: any CallClock) {
        real = Deadline.instant(after: seconds)
        onClock = clock is SystemCallClock ? real : Deadline.instant(after: seconds, on: clock)
    }
}

/// What a stream's sink measures on the call's clock when that is not the system's (a test's
/// virtual one), by alarms set from the head on: the idle timeout and the total deadline. The
/// real-time watchdog runs beside it in any case.
struct ClockWatch: Sendable {
    let clock: any CallClock
    let idle: Duration?
    /// ``StreamDeadline/onClock``.
    let deadline: ContinuousClock.Instant?

    /// The watch for a stream under `limits` on `clock`; `nil` on the system clock, or with nothing
    /// to watch.
    init?(clock: any CallClock, limits: StreamLimits, deadline: StreamDeadline?) {
        let idle = limits.idleDuration
        guard !(clock is SystemCallClock), idle != nil || deadline != nil else { return nil }
        (self.clock, self.idle, self.deadline) = (clock, idle, deadline?.onClock)
    }
}

extension StreamLimits {
    /// ``idleTimeout`` as a duration, capped so that the clock's arithmetic stays finite.
    var idleDuration: Duration? {
        idleTimeout.map { Duration.nanoseconds(Int64(min($0, Deadline.maximumSeconds) * 1e9)) }
    }
}
