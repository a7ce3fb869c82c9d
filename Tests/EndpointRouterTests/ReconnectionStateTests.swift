import Foundation
import Testing

@testable import EndpointRouter

/// Every event in every state of ``ReconnectionState``, as a table, without a connection or a clock,
/// for a GET under a policy of 3 attempts (1 s, doubling); then the same events for a POST, which
/// must never reach a wait, and the server that answers 2xx and ends at once, again and again.
struct ReconnectionStateTests {
    static let policy = ReconnectPolicy.automatic(maxAttempts: 3, initialDelay: .seconds(1), maximumDelay: .seconds(60))
    static let loss = HTTPClientError.transport(URLError(.networkConnectionLost))

    static let states: [String: ReconnectionState.State] = [
        "initial": .initial,
        "connecting 0": .connecting(attempt: 0),
        "connecting 2": .connecting(attempt: 2),
        "connecting 3": .connecting(attempt: 3),
        "streaming 0": .streaming(attempt: 0),
        "streaming 2": .streaming(attempt: 2),
        "streaming 3": .streaming(attempt: 3),
        "waiting 1": .waiting(attempt: 1, lastError: nil),
        "waiting 3 after loss": .waiting(attempt: 3, lastError: loss),
        "finished": .finished,
        "failed invalidResponse": .failed(.invalidResponse),
    ]

    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case next, opened200, opened204, openFailedLoss, openFailedOther, openFailedPastDeadline, delivered
        case endedClean, endedLoss, endedTimedOut, endedOther, endedPastDeadline, stopped
        var testDescription: String { rawValue }

        func apply(to machine: inout ReconnectionState) -> String {
            let loss = ReconnectionStateTests.loss
            switch self {
            case .next:
                switch machine.next(requested: nil) {
                case .connect: return "connect"
                case .reconnect(let delay): return "reconnect after \(delay)"
                case .finish: return "finish"
                case .fail(let error): return "fail \(ReconnectionStateTests.name(error))"
                }
            case .opened200: return machine.opened(status: 200) == nil ? "read" : "finish"
            case .opened204: return machine.opened(status: 204) == nil ? "read" : "finish"
            case .openFailedLoss: machine.openFailed(loss, pastDeadline: false)
            case .openFailedOther: machine.openFailed(.invalidResponse, pastDeadline: false)
            case .openFailedPastDeadline: machine.openFailed(loss, pastDeadline: true)
            case .delivered: machine.delivered()
            case .endedClean: machine.bodyEnded(nil, pastDeadline: false)
            case .endedLoss: machine.bodyEnded(loss, pastDeadline: false)
            case .endedTimedOut: machine.bodyEnded(.timedOut, pastDeadline: false)
            case .endedOther: machine.bodyEnded(.invalidResponse, pastDeadline: false)
            case .endedPastDeadline: machine.bodyEnded(loss, pastDeadline: true)
            case .stopped: machine.stopped()
            }
            return "-"
        }
    }

    /// `(state, event) → (next state, answer)` for the GET. Pairs not listed leave the state as it
    /// is (`stopped` always finishes; `next` with a connection open or the sequence over finishes).
    static let table: [String: (String, String)] = [
        "initial/next": ("connecting 0", "connect"),
        "connecting 0/opened200": ("streaming 0", "read"),
        "connecting 0/opened204": ("finished", "finish"),
        "connecting 0/openFailedLoss": ("failed transport", "-"),
        "connecting 0/openFailedOther": ("failed invalidResponse", "-"),
        "connecting 0/openFailedPastDeadline": ("failed transport", "-"),
        // A 2xx does not reset the count: only an element does.
        "connecting 2/opened200": ("streaming 2", "read"),
        "connecting 2/opened204": ("finished", "finish"),
        "connecting 2/openFailedLoss": ("waiting 3 after transport", "-"),
        "connecting 2/openFailedOther": ("failed invalidResponse", "-"),
        "connecting 2/openFailedPastDeadline": ("failed transport", "-"),
        "connecting 3/opened200": ("streaming 3", "read"),
        "connecting 3/opened204": ("finished", "finish"),
        "connecting 3/openFailedLoss": ("failed transport", "-"),
        "connecting 3/openFailedOther": ("failed invalidResponse", "-"),
        "connecting 3/openFailedPastDeadline": ("failed transport", "-"),
        "streaming 0/endedClean": ("waiting 1", "-"),
        "streaming 0/endedLoss": ("waiting 1 after transport", "-"),
        "streaming 0/endedTimedOut": ("waiting 1 after timedOut", "-"),
        "streaming 0/endedOther": ("failed invalidResponse", "-"),
        "streaming 0/endedPastDeadline": ("failed transport", "-"),
        "streaming 2/delivered": ("streaming 0", "-"),
        "streaming 2/endedClean": ("waiting 3", "-"),
        "streaming 2/endedLoss": ("waiting 3 after transport", "-"),
        "streaming 2/endedTimedOut": ("waiting 3 after timedOut", "-"),
        "streaming 2/endedOther": ("failed invalidResponse", "-"),
        "streaming 2/endedPastDeadline": ("failed transport", "-"),
        "streaming 3/delivered": ("streaming 0", "-"),
        "streaming 3/endedClean": ("finished", "-"),
        "streaming 3/endedLoss": ("failed transport", "-"),
        "streaming 3/endedTimedOut": ("failed timedOut", "-"),
        "streaming 3/endedOther": ("failed invalidResponse", "-"),
        "streaming 3/endedPastDeadline": ("failed transport", "-"),
        "waiting 1/next": ("connecting 1", "reconnect after 1.0 seconds"),
        "waiting 3 after loss/next": ("connecting 3", "reconnect after 4.0 seconds"),
        "failed invalidResponse/next": ("finished", "fail invalidResponse"),
    ]

    static func expected(_ name: String, _ event: Event, in table: [String: (String, String)]) -> (String, String) {
        if let listed = table["\(name)/\(event.rawValue)"] { return listed }
        switch event {
        case .stopped: return ("finished", "-")
        case .next: return ("finished", "finish")
        case .opened200, .opened204: return (name.replacingOccurrences(of: "after loss", with: "after transport"), "read")
        default: return (name.replacingOccurrences(of: "after loss", with: "after transport"), "-")
        }
    }

    @Test(arguments: states.keys.sorted(), Event.allCases)
    func eachEventInEachStateOfAGet(_ name: String, _ event: Event) throws {
        var machine = ReconnectionState(try #require(Self.states[name]), policy: Self.policy, mayRepeat: true)
        let answer = event.apply(to: &machine)
        let (next, expected) = Self.expected(name, event, in: Self.table)
        #expect(Self.name(machine.state) == next, "\(name) + \(event)")
        #expect(answer == expected, "\(name) + \(event)")
    }

    /// A POST (not retryable) never waits to reconnect, whatever happens: every end of a connection
    /// ends the sequence, with the error if there was one. (A POST stream once reconnected forever.)
    @Test(arguments: states.keys.sorted().filter { !$0.hasPrefix("waiting") }, Event.allCases)
    func aPostNeverReconnects(_ name: String, _ event: Event) throws {
        var machine = ReconnectionState(try #require(Self.states[name]), policy: Self.policy, mayRepeat: false)
        _ = event.apply(to: &machine)
        if case .waiting = machine.state { Issue.record("\(name) + \(event) waits to reconnect a POST") }
        switch (name, event) {
        case ("streaming 0", .endedClean), ("streaming 2", .endedClean): #expect(machine.state == .finished)
        case ("streaming 0", .endedLoss), ("connecting 2", .openFailedLoss): #expect(machine.state == .failed(Self.loss))
        default: break
        }
    }

    /// A server that answers 2xx and ends at once, again and again, meets the policy's attempts:
    /// the waits double, and the sequence ends after the third reconnection. (The count was once
    /// reset by every 2xx, and the stream never ended.)
    @Test func aServerThatAnswersAndEndsAtOnceIsReconnectedOnlyMaxAttemptsTimes() {
        var machine = ReconnectionState(policy: Self.policy, mayRepeat: true)
        var waits: [Duration] = []
        loop: for _ in 0..<100 {
            switch machine.next(requested: nil) {
            case .connect: break
            case .reconnect(let delay): waits.append(delay)
            case .finish: break loop
            case .fail(let error): Issue.record("failed with \(error)")
            }
            #expect(machine.opened(status: 200) == nil)
            machine.bodyEnded(nil, pastDeadline: false)
        }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4)])
        #expect(machine.state == .finished)
    }

    /// A call that could not be built throws its error at once, then ends.
    @Test func aCallThatCouldNotBeBuiltFailsFirst() {
        var machine = ReconnectionState(policy: Self.policy, mayRepeat: true, failure: .encodingFailed("x"))
        #expect(machine.next(requested: nil) == .fail(.encodingFailed("x")))
        #expect(machine.next(requested: nil) == .finish)
    }

    /// The server's `retry` sets the wait, within the policy's longest.
    @Test func theServersRetryDelayIsHonouredUpToTheMaximum() {
        var machine = ReconnectionState(.waiting(attempt: 1, lastError: nil), policy: Self.policy, mayRepeat: true)
        #expect(machine.next(requested: .milliseconds(250)) == .reconnect(after: .milliseconds(250)))
        machine = ReconnectionState(.waiting(attempt: 1, lastError: nil), policy: Self.policy, mayRepeat: true)
        #expect(machine.next(requested: .seconds(600)) == .reconnect(after: .seconds(60)))
    }

    static func name(_ state: ReconnectionState.State) -> String {
        switch state {
        case .initial: "initial"
        case .connecting(let attempt): "connecting \(attempt)"
        case .streaming(let attempt): "streaming \(attempt)"
        case .waiting(let attempt, nil): "waiting \(attempt)"
        case .waiting(let attempt, let error?): "waiting \(attempt) after \(name(error))"
        case .finished: "finished"
        case .failed(let error): "failed \(name(error))"
        }
    }

    static func name(_ error: HTTPClientError) -> String {
        switch error {
        case .transport: "transport"
        case .timedOut: "timedOut"
        case .invalidResponse: "invalidResponse"
        default: "\(error)"
        }
    }
}
