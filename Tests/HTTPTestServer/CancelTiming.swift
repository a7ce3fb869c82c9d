/// How long one `cancel()` held its caller, and how long the cancelled call took to end after it;
/// tests of prompt cancellation collect one per try and judge them together with ``problems(in:returnedWithin:endedWithin:)``.
///
/// The rule is the best of several tries: a cancel that waits for something (corelibs' queue behind
/// a body, a connection's close) is slow on every try, while a 2-core CI machine running other
/// suites can preempt the test's thread for tens of milliseconds on any single try (CI once measured
/// 63 ms for a `cancel()` that takes microseconds). No try may come near a hang, though.
public struct CancelTiming: Sendable {
    /// How many tries a test makes.
    public static let tries = 3
    /// The slowest any single try may end, however loaded the machine.
    public static let ceiling: Duration = .seconds(2)

    /// From the call to `cancel()` to its return.
    public var returned: Duration
    /// From the call to `cancel()` to the cancelled call's end.
    public var ended: Duration

    /// One try's two measurements.
    public init(returned: Duration, ended: Duration) {
        self.returned = returned
        self.ended = ended
    }

    /// What is wrong with `timings`, one sentence each; empty if the cancels were prompt.
    public static func problems(
        in timings: [CancelTiming], returnedWithin returnBound: Duration, endedWithin endBound: Duration
    ) -> [String] {
        let returned = timings.map(\.returned)
        let ended = timings.map(\.ended)
        var problems: [String] = []
        if timings.count != tries { problems.append("\(timings.count) tries were timed, not \(tries)") }
        if (returned.min() ?? .seconds(1)) >= returnBound {
            problems.append("cancel() held its caller \(returned) (best try must be under \(returnBound))")
        }
        if (ended.min() ?? .seconds(1)) >= endBound {
            problems.append("the calls ended \(ended) after cancel() (best try must be under \(endBound))")
        }
        if ended.contains(where: { $0 >= ceiling }) {
            problems.append("a call ended \(ended.max() ?? .zero) after cancel() (every try must be under \(ceiling))")
        }
        return problems
    }
}
