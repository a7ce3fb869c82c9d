import Testing

@testable import EndpointRouter

/// Every event in every state of ``CurlExchangeState``, as a table, without libcurl or a network:
/// the continuation is an `Int`, so an action shows which caller it answers.
struct CurlExchangeStateTests {
    typealias Machine = CurlExchangeState<Int>

    static let head = ResponseHead(statusCode: 200, headers: [:], url: nil)

    /// One state of each kind, with caller 7 where it has one; `failing` keeps `.timedOut`.
    static var states: [String: Machine.State] {
        [
            "created": .created,
            "cancelledBeforeStart": .cancelledBeforeStart(.cancelled),
            "awaitingHead": .awaitingHead(7),
            "ready": .streaming(7, head, .ready),
            "asking": .streaming(7, head, .asking),
            "paused": .streaming(7, head, .paused),
            "failing": .failing(7, .timedOut),
            "finished": .finished,
        ]
    }

    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case start, cancel, head, fail, piece, demand, completeOK, completeError
        var testDescription: String { rawValue }

        func apply(to machine: inout Machine) -> Machine.Action {
            switch self {
            case .start: machine.start(9)
            case .cancel: machine.cancel(.cancelled)
            case .head: machine.head(CurlExchangeStateTests.head)
            case .fail: machine.fail(.responseTooLarge(limit: 1))
            case .piece: machine.piece()
            case .demand: machine.demand()
            case .completeOK: machine.complete(nil)
            case .completeError: machine.complete(.invalidResponse)
            }
        }
    }

    /// `(state, event) → (next state, action)` for a sink that waits (a stream's). Pairs not listed
    /// leave the state as it is and do nothing.
    static let table: [String: (String, String)] = [
        "created/start": ("awaitingHead", "add"),
        "created/cancel": ("cancelledBeforeStart", "none"),
        "created/fail": ("created", "abort"),
        "created/piece": ("created", "abort"),
        "cancelledBeforeStart/start": ("finished", "answer 9 with cancelled"),
        "cancelledBeforeStart/fail": ("cancelledBeforeStart", "abort"),
        "cancelledBeforeStart/piece": ("cancelledBeforeStart", "abort"),
        "awaitingHead/cancel": ("finished", "remove, answer 7 with cancelled"),
        "awaitingHead/head": ("ready", "deliverHead"),
        "awaitingHead/fail": ("failing", "abort"),
        "awaitingHead/piece": ("awaitingHead", "abort"),
        "awaitingHead/completeOK": ("finished", "remove, answer 7 with invalidResponse"),
        "awaitingHead/completeError": ("finished", "remove, answer 7 with invalidResponse"),
        "ready/cancel": ("finished", "remove, answer 7 with cancelled"),
        "ready/fail": ("failing", "abort"),
        "ready/piece": ("asking", "write, then ask"),
        "ready/completeOK": ("finished", "remove, answer 7 with 200"),
        "ready/completeError": ("finished", "remove, answer 7 with invalidResponse"),
        "asking/cancel": ("finished", "remove, answer 7 with cancelled"),
        "asking/fail": ("failing", "abort"),
        "asking/piece": ("paused", "pause"),
        "asking/demand": ("ready", "none"),
        "asking/completeOK": ("finished", "remove, answer 7 with 200"),
        "asking/completeError": ("finished", "remove, answer 7 with invalidResponse"),
        "paused/cancel": ("finished", "remove, answer 7 with cancelled"),
        "paused/fail": ("failing", "abort"),
        "paused/piece": ("paused", "pause"),
        "paused/demand": ("ready", "unpause"),
        "paused/completeOK": ("finished", "remove, answer 7 with 200"),
        "paused/completeError": ("finished", "remove, answer 7 with invalidResponse"),
        "failing/cancel": ("finished", "remove, answer 7 with timedOut"),
        "failing/fail": ("failing", "abort"),
        "failing/piece": ("failing", "abort"),
        "failing/completeOK": ("finished", "remove, answer 7 with timedOut"),
        "failing/completeError": ("finished", "remove, answer 7 with timedOut"),
        "finished/fail": ("finished", "abort"),
        "finished/piece": ("finished", "abort"),
    ]

    @Test(arguments: states.keys.sorted(), Event.allCases)
    func eachEventInEachState(_ name: String, _ event: Event) throws {
        var machine = Machine(try #require(Self.states[name]), sinkWaits: true)
        let action = event.apply(to: &machine)
        let (next, expected) = Self.table["\(name)/\(event.rawValue)"] ?? (name, "none")
        #expect(Self.name(of: machine.state) == next, "\(name) + \(event)")
        #expect(Self.describe(action) == expected, "\(name) + \(event)")
    }

    @Test func aSinkThatNeverWaitsIsWrittenWithoutAsking() {
        var machine = Machine(.streaming(7, Self.head, .ready), sinkWaits: false)
        for _ in 0..<3 {
            #expect(Self.describe(machine.piece()) == "write")
            #expect(Self.name(of: machine.state) == "ready")
        }
    }

    /// Whatever order the events come in, the caller is answered once and only after the handle left.
    @Test func everyOrderAnswersTheCallerOnce() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var machine = Machine(sinkWaits: true)
            var answers = 0
            for _ in 0..<12 {
                let event = Event.allCases.randomElement(using: &generator) ?? .cancel
                switch event.apply(to: &machine) {
                case .answer, .removeAndAnswer: answers += 1
                default: break
                }
            }
            if case .finished = machine.state { #expect(answers == 1) } else { #expect(answers == 0) }
        }
    }

    static func name(of state: Machine.State) -> String {
        switch state {
        case .created: "created"
        case .cancelledBeforeStart: "cancelledBeforeStart"
        case .awaitingHead: "awaitingHead"
        case .streaming(_, _, .ready): "ready"
        case .streaming(_, _, .asking): "asking"
        case .streaming(_, _, .paused): "paused"
        case .failing: "failing"
        case .finished: "finished"
        }
    }

    static func describe(_ action: Machine.Action) -> String {
        func outcome(_ result: Result<ResponseHead, HTTPClientError>) -> String {
            switch result {
            case .success(let head): "\(head.statusCode)"
            case .failure(.cancelled): "cancelled"
            case .failure(.timedOut): "timedOut"
            case .failure(.invalidResponse): "invalidResponse"
            case .failure(let error): "\(error)"
            }
        }
        switch action {
        case .none: return "none"
        case .add: return "add"
        case .answer(let caller, let result): return "answer \(caller) with \(outcome(result))"
        case .removeAndAnswer(let caller, let result): return "remove, answer \(caller) with \(outcome(result))"
        case .deliverHead: return "deliverHead"
        case .write(let ask): return ask ? "write, then ask" : "write"
        case .pause: return "pause"
        case .abort: return "abort"
        case .unpause: return "unpause"
        }
    }
}
