import EndpointRouter

/// What a scripted route (``StubTransport/on(_:_:query:headers:body:respondInOrder:then:)``) does
/// once every answer of its script has been given.
///
/// ```swift
/// // The first call is throttled, every later one succeeds.
/// stub.on(.get, "/todos", respondInOrder: [.status(429), .json(todos)], then: .repeatLast)
/// ```
public enum StubScriptEnd: Sendable, Hashable {
    /// Every further request the route matches fails with a `.transport` error that names the route
    /// and how many answers its script had: a test that sends more requests than it scripted finds out,
    /// instead of passing on answers it did not write down.
    case fail
    /// The last answer is given again, to every further request (a script that ends in success
    /// and stays there).
    case repeatLast
}

/// The answers of one scripted route and how far it has got, shared by the requests it matches.
///
/// Each route has its own, so scripts of different routes advance independently whatever order
/// parallel calls arrive in; requests to the same route take its answers in arrival order.
final class StubScript: Sendable {
    /// What a request matched by the route gets.
    enum Take {
        case answer(StubResponse)
        /// The script ran out: `answers` were given, and this is request `request` to the route.
        case exhausted(answers: Int, request: Int)
    }

    private let state: Locked<StubScriptState>

    init(_ answers: [StubResponse], then end: StubScriptEnd) {
        state = Locked(StubScriptState(answers: answers, end: end))
    }

    /// The answer for the next request the route matched, taking it from the script.
    func take() -> Take {
        state.withLock { $0.requestArrived() }
    }
}

/// The position in a script: which answer comes next, and what happens after the last.
struct StubScriptState {
    enum State {
        /// The answer at `next` goes to the next request.
        case answering(next: Int)
        /// Past the end with ``StubScriptEnd/repeatLast``: the last answer, again and again.
        case repeatingLast
        /// Past the end with ``StubScriptEnd/fail``, or a script with no answers: `extra` requests
        /// came after the last answer.
        case exhausted(extra: Int)
    }

    let answers: [StubResponse]
    let end: StubScriptEnd
    private(set) var state: State

    init(answers: [StubResponse], end: StubScriptEnd) {
        self.answers = answers
        self.end = end
        state = .answering(next: 0)
    }

    /// A request matched the route: the answer it gets, and the position moves on.
    mutating func requestArrived() -> StubScript.Take {
        switch state {
        case .answering(let next) where next < answers.count:
            if next < answers.count - 1 {
                state = .answering(next: next + 1)
            } else {
                state = end == .repeatLast ? .repeatingLast : .exhausted(extra: 0)
            }
            return .answer(answers[next])
        case .answering:
            // Only a script without answers gets here: it has none to repeat either.
            state = .exhausted(extra: 1)
            return .exhausted(answers: 0, request: 1)
        case .repeatingLast:
            // Entered only after the last answer was given, so there is one.
            guard let last = answers.last else { return .exhausted(answers: 0, request: 1) }
            return .answer(last)
        case .exhausted(let extra):
            state = .exhausted(extra: extra + 1)
            return .exhausted(answers: answers.count, request: answers.count + extra + 1)
        }
    }
}
