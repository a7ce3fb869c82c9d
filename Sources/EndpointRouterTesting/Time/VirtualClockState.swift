/// The rules of ``VirtualClock``: how far virtual time has moved, who sleeps until when, and whom
/// each event wakes. One mutating function per event, each returning what to resume; the clock
/// carries that out outside its lock.
struct VirtualClockState<Waiter, Alarm> {
    /// What an event asks the clock to do.
    enum Action {
        /// Nothing to resume.
        case none
        /// Resume the sleeper at once: its instant has come (or the clock moved to it).
        case resumeNow
        /// Resume these sleepers, in this order (earliest instant first).
        case resume([Waiter])
        /// Resume this sleeper with `.cancelled`.
        case cancel(Waiter)
        /// Resume the sleeper at once with `.cancelled`: its task was cancelled before it slept.
        case cancelNow
    }

    struct Sleeper {
        let id: UInt64
        let wake: Duration
        let waiter: Waiter
    }

    let advancesAutomatically: Bool
    /// Virtual time since the clock was made.
    private(set) var elapsed: Duration = .zero
    /// Every wait asked for, measured from the instant it was asked, in order.
    private(set) var waits: [Duration] = []
    private var sleepers: [Sleeper] = []
    private var lastID: UInt64 = 0
    /// Sleepers whose cancellation came before they registered.
    private var cancelledEarly: Set<UInt64> = []
    /// Actions to run when the clock reaches their instant; they never move it themselves.
    private var alarms: [(id: UInt64, at: Duration, alarm: Alarm)] = []

    init(advancesAutomatically: Bool) {
        self.advancesAutomatically = advancesAutomatically
    }

    var pendingSleepers: Int { sleepers.count }

    /// A new sleeper's id, taken before it suspends so that a cancellation can name it.
    mutating func nextID() -> UInt64 {
        lastID &+= 1
        return lastID
    }

    /// A task asks to sleep until `wake` (time since the clock was made); `again` when it asked
    /// already and was resumed at an alarm on the way, so the wait is not noted twice.
    ///
    /// Advancing automatically, the clock moves to the earliest alarm before `wake` if there is one,
    /// not past it: what the alarm ends (a stream's idle timeout) ends at its own instant, and the
    /// sleeper, resumed there, asks again for the rest unless the alarm cancelled it.
    mutating func sleepRequested(id: UInt64, until wake: Duration, waiter: Waiter, again: Bool = false) -> Action {
        if cancelledEarly.remove(id) != nil { return .cancelNow }
        if !again { waits.append(max(.zero, wake - elapsed)) }
        if wake <= elapsed { return .resumeNow }
        if advancesAutomatically {
            let now = elapsed
            elapsed = alarms.map(\.at).filter { $0 > now }.min().map { min($0, wake) } ?? wake
            return .resumeNow
        }
        sleepers.append(Sleeper(id: id, wake: wake, waiter: waiter))
        return .none
    }

    /// The test moves the clock to `target`; time never goes back.
    mutating func advanced(to target: Duration) -> Action {
        elapsed = max(elapsed, target)
        let due = sleepers.filter { $0.wake <= elapsed }.sorted { ($0.wake, $0.id) < ($1.wake, $1.id) }
        guard !due.isEmpty else { return .none }
        sleepers.removeAll { $0.wake <= elapsed }
        return .resume(due.map(\.waiter))
    }

    /// An alarm is set for `at`: answered at once when that time has come.
    mutating func alarmSet(id: UInt64, at: Duration, alarm: Alarm) -> Alarm? {
        if at <= elapsed { return alarm }
        alarms.append((id, at, alarm))
        return nil
    }

    /// The alarm is no longer wanted.
    mutating func alarmCancelled(id: UInt64) {
        alarms.removeAll { $0.id == id }
    }

    /// The alarms whose time has come, earliest first, taken out; asked after each move of the clock.
    mutating func dueAlarms() -> [Alarm] {
        let due = alarms.filter { $0.at <= elapsed }.sorted { ($0.at, $0.id) < ($1.at, $1.id) }
        guard !due.isEmpty else { return [] }
        alarms.removeAll { $0.at <= elapsed }
        return due.map(\.alarm)
    }

    /// The sleeping task was cancelled; its sleeper goes if it still waits.
    mutating func cancelled(id: UInt64) -> Action {
        guard let index = sleepers.firstIndex(where: { $0.id == id }) else {
            // Woken already, or not registered yet: then it must not sleep. (An id woken already
            // stays in the set, unused: ids are never reused.)
            cancelledEarly.insert(id)
            return .none
        }
        return .cancel(sleepers.remove(at: index).waiter)
    }
}
