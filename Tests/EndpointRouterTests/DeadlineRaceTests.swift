import Testing

@testable import EndpointRouter

/// Every event of ``DeadlineRace`` in every state, without a task, a timer or a continuation: the
/// waiter is answered exactly once, with the first outcome, and whatever arrives after the end is
/// cancelled.
@Suite("Deadline race: every event in every state")
struct DeadlineRaceTests {
    typealias Race = DeadlineRace<String, String, String, Int>

    enum Event: CaseIterable, CustomTestStringConvertible {
        case waiterArrived, workStarted, timerArmed, finished
        var testDescription: String { "\(self)" }

        func apply(_ race: inout Race) -> Race.Action {
            switch self {
            case .waiterArrived: race.waiterArrived("waiter")
            case .workStarted: race.workStarted("work")
            case .timerArmed: race.timerArmed("timer")
            case .finished: race.finished(7)
            }
        }
    }

    /// The reachable states, each built by events only, as the shell would.
    static let states: [(name: String, events: [Event])] = [
        ("new", []),
        ("waiting", [.waiterArrived]),
        ("waiting with work", [.waiterArrived, .workStarted]),
        ("waiting with work and timer", [.waiterArrived, .workStarted, .timerArmed]),
        ("work before waiter", [.workStarted]),
        ("finished early", [.finished]),
        ("answered", [.waiterArrived, .workStarted, .timerArmed, .finished]),
    ]

    static func race(_ events: [Event]) -> Race {
        var race = Race()
        for event in events { _ = event.apply(&race) }
        return race
    }

    /// The table: for each state, the action and the next state of each event.
    static let table: [String: [Event: (Race.Action, Race.State)]] = [
        "new": [
            .waiterArrived: (.none, .running(waiter: "waiter", work: nil, timer: nil)),
            .workStarted: (.none, .running(waiter: nil, work: "work", timer: nil)),
            .timerArmed: (.none, .running(waiter: nil, work: nil, timer: "timer")),
            .finished: (.cancel(nil, nil), .finishedEarly(7)),
        ],
        "waiting": [
            .workStarted: (.none, .running(waiter: "waiter", work: "work", timer: nil)),
            .timerArmed: (.none, .running(waiter: "waiter", work: nil, timer: "timer")),
            .finished: (.answer("waiter", 7, cancelling: nil, nil), .answered),
        ],
        "waiting with work": [
            .timerArmed: (.none, .running(waiter: "waiter", work: "work", timer: "timer")),
            .finished: (.answer("waiter", 7, cancelling: "work", nil), .answered),
        ],
        "waiting with work and timer": [
            .finished: (.answer("waiter", 7, cancelling: "work", "timer"), .answered)
        ],
        "work before waiter": [
            .waiterArrived: (.none, .running(waiter: "waiter", work: "work", timer: nil)),
            .timerArmed: (.none, .running(waiter: nil, work: "work", timer: "timer")),
            .finished: (.cancel("work", nil), .finishedEarly(7)),
        ],
        "finished early": [
            .waiterArrived: (.answer("waiter", 7, cancelling: nil, nil), .answered),
            .workStarted: (.cancel("work", nil), .finishedEarly(7)),
            .timerArmed: (.cancel(nil, "timer"), .finishedEarly(7)),
            .finished: (.none, .finishedEarly(7)),
        ],
        "answered": [
            .workStarted: (.cancel("work", nil), .answered),
            .timerArmed: (.cancel(nil, "timer"), .answered),
            .finished: (.none, .answered),
        ],
    ]

    /// Events a correct shell never sends in that state (a second waiter; the same work or timer
    /// twice): the machine asserts on the first, and the table leaves them out.
    static let impossible: Set<String> = [
        "waiting/waiterArrived", "waiting with work/waiterArrived", "waiting with work/workStarted",
        "waiting with work and timer/waiterArrived", "waiting with work and timer/workStarted",
        "waiting with work and timer/timerArmed", "work before waiter/workStarted", "answered/waiterArrived",
    ]

    @Test(arguments: states.map(\.name), Event.allCases)
    func transition(_ stateName: String, _ event: Event) throws {
        let key = "\(stateName)/\(event)"
        guard !Self.impossible.contains(key) else { return }
        let events = try #require(Self.states.first { $0.name == stateName }).events
        let expected = try #require(Self.table[stateName]?[event], "no row for \(key)")
        var race = Self.race(events)
        let action = event.apply(&race)
        #expect(action == expected.0, "\(key)")
        #expect(race.state == expected.1, "\(key)")
        #expect(race.isFinished == !Self.isRunning(expected.1))
    }

    static func isRunning(_ state: Race.State) -> Bool {
        if case .running = state { true } else { false }
    }

    /// Every row of the table is a reachable state and a possible event: the table and the list of
    /// impossible events together cover all of them, once.
    @Test func theTableCoversEveryEventInEveryState() {
        for (name, _) in Self.states {
            for event in Event.allCases {
                let key = "\(name)/\(event)"
                #expect((Self.table[name]?[event] != nil) != Self.impossible.contains(key), "\(key)")
            }
        }
    }

    /// Whatever the order of the events, the waiter is answered once, with the first outcome.
    @Test func theWaiterIsAnsweredOnceWithTheFirstOutcome() {
        let orders: [[Int]] = permutations([0, 1, 2, 3, 4])
        for order in orders {
            var race = Race()
            var answers: [Int] = []
            var firstOutcome: Int?
            for step in order {
                let action: Race.Action
                switch step {
                case 0: action = race.waiterArrived("waiter")
                case 1: action = race.workStarted("work")
                case 2: action = race.timerArmed("timer")
                default:
                    if firstOutcome == nil { firstOutcome = step }
                    action = race.finished(step)
                }
                if case .answer(_, let outcome, _, _) = action { answers.append(outcome) }
            }
            #expect(answers.count == 1, "\(order)")
            #expect(answers.first == firstOutcome, "\(order)")
        }
    }

    func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let item = rest.remove(at: index)
            return permutations(rest).map { [item] + $0 }
        }
    }
}
