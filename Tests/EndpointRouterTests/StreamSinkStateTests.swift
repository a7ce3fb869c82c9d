import Foundation
import Testing

@testable import EndpointRouter

/// Every event in every state of ``StreamSinkState``, as a table, without a task, a transport or a
/// clock: waiters and tasks are `Int`s, so an action shows whom it resumes and what it cancels. The
/// buffer holds 4 bytes; the consumer waits as 7, the transport as 8, the exchange is task 1 and the
/// watchdog task 2.
struct StreamSinkStateTests {
    typealias Machine = StreamSinkState<Int, Int>

    static let head = ResponseHead(statusCode: 200, headers: [:], url: nil)
    static var tasks: Machine.Tasks { Machine.Tasks(exchange: 1, watchdog: 2) }

    static func buffer(_ pieces: String...) -> Machine.Buffer {
        var buffer = Machine.Buffer()
        for piece in pieces { buffer.append(Data(piece.utf8)) }
        return buffer
    }

    /// Each starting state, with the buffer it holds; the tasks are held while the stream runs.
    static var states: [String: (Machine.State, Machine.Buffer)] {
        [
            "awaiting": (.awaitingHead(consumer: nil), buffer()),
            "awaiting+consumer": (.awaitingHead(consumer: 7), buffer()),
            "streaming 0B": (.streaming(head, .nobody), buffer()),
            "streaming 0B+consumer": (.streaming(head, .consumer(7)), buffer()),
            "streaming 1B": (.streaming(head, .nobody), buffer("a")),
            "streaming 4B": (.streaming(head, .nobody), buffer("abcd")),
            "streaming 4B+transport": (.streaming(head, .transport(8)), buffer("abcd")),
            "finished 1B": (.finished(head), buffer("a")),
            "finished 0B": (.finished(head), buffer()),
            "failed timedOut 1B": (.failed(head, .timedOut), buffer("a")),
            "failed(no head) timedOut 0B": (.failed(nil, .timedOut), buffer()),
        ]
    }

    static func machine(_ name: String) throws -> Machine {
        let (state, buffer) = try #require(states[name])
        return Machine(state, buffer: buffer, tasks: tasks, capacity: 4)
    }

    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case head, piece, endedOK, endedError, demand, transportParked, transportCancelled, exchangeStarted, watchdogStarted
        case headAsked, pieceAsked, parkedForHead, parkedForPiece, close, closeKeeping
        var testDescription: String { rawValue }

        /// Applies the event; returns what it answered, described.
        func apply(to machine: inout Machine) -> String {
            switch self {
            case .head: describe(machine.headReceived(StreamSinkStateTests.head))
            case .piece: describe(machine.pieceReceived(Data("xy".utf8)))
            case .endedOK: describe(machine.exchangeEnded(.success(ResponseHead(statusCode: 201))))
            case .endedError: describe(machine.exchangeEnded(.failure(.invalidResponse)))
            case .demand: describe(machine.demandAsked())
            case .transportParked: describe(machine.transportParked(9))
            case .transportCancelled: describe(machine.transportCancelled())
            case .exchangeStarted: describe(machine.exchangeStarted(5))
            case .watchdogStarted: describe(machine.watchdogStarted(6))
            case .headAsked: describe(machine.headAsked())
            case .pieceAsked: describe(machine.pieceAsked())
            case .parkedForHead: describe(machine.consumerParked(9, forHead: true))
            case .parkedForPiece: describe(machine.consumerParked(9, forHead: false))
            case .close: describe(machine.closed(.cancelled, keepingBuffered: false))
            case .closeKeeping: describe(machine.closed(.timedOut, keepingBuffered: true))
            }
        }
    }

    /// `(state, event) → (next state, answer)`. Pairs not listed leave the state as it is and answer
    /// `none` (for the questions: what the row `*/question` says).
    static let table: [String: (String, String)] = [
        "awaiting/head": ("streaming 0B", "none"),
        "awaiting/piece": ("failed(no head) invalidResponse 0B", "end cancel [2] refuse invalidResponse"),
        "awaiting/endedOK": ("finished 0B", "end cancel [2]"),
        "awaiting/endedError": ("failed(no head) invalidResponse 0B", "end cancel [2]"),
        "awaiting/parkedForHead": ("awaiting+consumer", "none"),
        "awaiting/parkedForPiece": ("awaiting+consumer", "none"),
        "awaiting/close": ("failed(no head) cancelled 0B", "end cancel [1, 2]"),
        "awaiting/closeKeeping": ("failed(no head) timedOut 0B", "end cancel [1, 2]"),

        "awaiting+consumer/head": ("streaming 0B", "resume 7"),
        "awaiting+consumer/piece": ("failed(no head) invalidResponse 0B", "end resume 7 cancel [2] refuse invalidResponse"),
        "awaiting+consumer/endedOK": ("finished 0B", "end resume 7 cancel [2]"),
        "awaiting+consumer/endedError": ("failed(no head) invalidResponse 0B", "end resume 7 cancel [2]"),
        "awaiting+consumer/close": ("failed(no head) cancelled 0B", "end resume 7 cancel [1, 2]"),
        "awaiting+consumer/closeKeeping": ("failed(no head) timedOut 0B", "end resume 7 cancel [1, 2]"),

        "streaming 0B/piece": ("streaming 2B", "none"),
        "streaming 0B/endedOK": ("finished 0B", "end cancel [2]"),
        "streaming 0B/endedError": ("failed invalidResponse 0B", "end cancel [2]"),
        "streaming 0B/parkedForPiece": ("streaming 0B+consumer", "none"),
        "streaming 0B/close": ("failed cancelled 0B", "end cancel [1, 2]"),
        "streaming 0B/closeKeeping": ("failed timedOut 0B", "end cancel [1, 2]"),

        "streaming 0B+consumer/piece": ("streaming 2B", "resume 7"),
        "streaming 0B+consumer/endedOK": ("finished 0B", "end resume 7 cancel [2]"),
        "streaming 0B+consumer/endedError": ("failed invalidResponse 0B", "end resume 7 cancel [2]"),
        "streaming 0B+consumer/close": ("failed cancelled 0B", "end resume 7 cancel [1, 2]"),
        "streaming 0B+consumer/closeKeeping": ("failed timedOut 0B", "end resume 7 cancel [1, 2]"),

        "streaming 1B/piece": ("streaming 3B", "none"),
        "streaming 1B/endedOK": ("finished 1B", "end cancel [2]"),
        "streaming 1B/endedError": ("failed invalidResponse 1B", "end cancel [2]"),
        "streaming 1B/pieceAsked": ("streaming 0B", "piece a"),
        "streaming 1B/close": ("failed cancelled 0B", "end cancel [1, 2]"),
        "streaming 1B/closeKeeping": ("failed timedOut 1B", "end cancel [1, 2]"),

        "streaming 4B/piece": ("failed responseTooLarge 4B", "end cancel [2] refuse responseTooLarge"),
        "streaming 4B/endedOK": ("finished 4B", "end cancel [2]"),
        "streaming 4B/endedError": ("failed invalidResponse 4B", "end cancel [2]"),
        "streaming 4B/demand": ("streaming 4B", "wait"),
        "streaming 4B/transportParked": ("streaming 4B+transport", "none"),
        "streaming 4B/pieceAsked": ("streaming 0B", "piece abcd"),
        "streaming 4B/close": ("failed cancelled 0B", "end cancel [1, 2]"),
        "streaming 4B/closeKeeping": ("failed timedOut 4B", "end cancel [1, 2]"),

        "streaming 4B+transport/piece": ("failed responseTooLarge 4B", "end resume 8 cancel [2] refuse responseTooLarge"),
        "streaming 4B+transport/endedOK": ("finished 4B", "end resume 8 cancel [2]"),
        "streaming 4B+transport/endedError": ("failed invalidResponse 4B", "end resume 8 cancel [2]"),
        "streaming 4B+transport/demand": ("streaming 4B+transport", "wait"),
        "streaming 4B+transport/transportCancelled": ("streaming 4B", "resume 8"),
        "streaming 4B+transport/pieceAsked": ("streaming 0B", "piece abcd, resume 8"),
        "streaming 4B+transport/close": ("failed cancelled 0B", "end resume 8 cancel [1, 2]"),
        "streaming 4B+transport/closeKeeping": ("failed timedOut 4B", "end resume 8 cancel [1, 2]"),

        "finished 1B/exchangeStarted": ("finished 1B", "cancel 5"),
        "finished 1B/watchdogStarted": ("finished 1B", "cancel 6"),
        "finished 1B/pieceAsked": ("finished 0B", "piece a"),
        "finished 1B/close": ("finished 0B", "none"),

        "finished 0B/exchangeStarted": ("finished 0B", "cancel 5"),
        "finished 0B/watchdogStarted": ("finished 0B", "cancel 6"),
        "finished 0B/pieceAsked": ("finished 0B", "end"),

        "failed timedOut 1B/head": ("failed timedOut 1B", "refuse timedOut"),
        "failed timedOut 1B/piece": ("failed timedOut 1B", "refuse timedOut"),
        "failed timedOut 1B/demand": ("failed timedOut 1B", "failure timedOut"),
        "failed timedOut 1B/exchangeStarted": ("failed timedOut 1B", "cancel 5"),
        "failed timedOut 1B/watchdogStarted": ("failed timedOut 1B", "cancel 6"),
        "failed timedOut 1B/pieceAsked": ("failed timedOut 0B", "piece a"),
        "failed timedOut 1B/close": ("failed timedOut 0B", "none"),

        "failed(no head) timedOut 0B/head": ("failed(no head) timedOut 0B", "refuse timedOut"),
        "failed(no head) timedOut 0B/piece": ("failed(no head) timedOut 0B", "refuse timedOut"),
        "failed(no head) timedOut 0B/demand": ("failed(no head) timedOut 0B", "failure timedOut"),
        "failed(no head) timedOut 0B/exchangeStarted": ("failed(no head) timedOut 0B", "cancel 5"),
        "failed(no head) timedOut 0B/watchdogStarted": ("failed(no head) timedOut 0B", "cancel 6"),
        "failed(no head) timedOut 0B/headAsked": ("failed(no head) timedOut 0B", "failure timedOut"),
        "failed(no head) timedOut 0B/pieceAsked": ("failed(no head) timedOut 0B", "failure timedOut"),
    ]

    /// The answer to an event not in the table, in any state.
    static func unlisted(_ event: Event, in name: String) -> String {
        switch event {
        case .demand: "room"
        case .transportParked, .parkedForHead, .parkedForPiece: "resume 9"
        case .headAsked: name.hasPrefix("awaiting") ? "wait" : "head 200"
        case .pieceAsked: "wait"
        default: "none"
        }
    }

    @Test(arguments: states.keys.sorted(), Event.allCases)
    func eachEventInEachState(_ name: String, _ event: Event) throws {
        var machine = try Self.machine(name)
        let answer = event.apply(to: &machine)
        let (next, expected) = Self.table["\(name)/\(event.rawValue)"] ?? (name, Self.unlisted(event, in: name))
        #expect(Self.name(of: machine) == next, "\(name) + \(event)")
        #expect(answer == expected, "\(name) + \(event)")
        #expect(Self.keepsItsInvariants(machine), "\(name) + \(event)")
    }

    /// What the state's cases no longer carry, the events keep: no byte before the head, and no
    /// task once the stream ended (an ended stream has nothing left to cancel twice).
    static func keepsItsInvariants(_ machine: Machine) -> Bool {
        switch machine.state {
        case .awaitingHead: machine.buffer.isEmpty
        case .streaming: true
        case .finished, .failed: machine.tasks.all.isEmpty
        }
    }

    /// Whatever order the events come in, every waiter held is resumed exactly once, the stream
    /// ends once, and what the consumer takes is what the transport wrote, in order.
    @Test func everyOrderResumesEachWaiterOnceAndDeliversInOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var machine = Machine(capacity: 4)
            var held: Set<Int> = []
            var resumed: [Int] = []
            var ends = 0
            var written: [UInt8] = []
            var taken: [UInt8] = []
            var next = 100
            func record(_ action: Machine.Action) {
                switch action {
                case .resume(let waiter): resumed.append(waiter)
                case .end(let waiter, _, _):
                    ends += 1
                    if let waiter { resumed.append(waiter) }
                default: break
                }
            }
            for _ in 0..<24 {
                next += 1
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: record(machine.headReceived(Self.head))
                case 1:
                    let byte = UInt8(truncatingIfNeeded: next)
                    let action = machine.pieceReceived(Data([byte]))
                    if case .none = action { written.append(byte) } else if case .resume = action { written.append(byte) }
                    record(action)
                case 2:
                    held.insert(next)
                    record(machine.transportParked(next))
                case 3:
                    held.insert(next)
                    record(machine.consumerParked(next, forHead: Bool.random(using: &generator)))
                case 4:
                    if case .piece(let piece, let transport) = machine.pieceAsked() {
                        taken += piece
                        if let transport { resumed.append(transport) }
                    }
                case 5: record(machine.transportCancelled())
                case 6: record(machine.closed(.cancelled, keepingBuffered: Bool.random(using: &generator)))
                case 7: record(machine.exchangeEnded(.success(Self.head)))
                case 8: record(Bool.random(using: &generator) ? machine.exchangeStarted(next) : machine.watchdogStarted(next))
                default: record(machine.exchangeEnded(.failure(.timedOut)))
                }
                #expect(Self.keepsItsInvariants(machine))
            }
            record(machine.closed(.cancelled, keepingBuffered: true))
            while case .piece(let piece, _) = machine.pieceAsked() { taken += piece }
            #expect(ends == 1, "the stream ends once")
            #expect(Set(resumed).count == resumed.count, "no waiter is resumed twice")
            #expect(Set(resumed) == held, "every waiter held is resumed")
            #expect(written.starts(with: taken), "the consumer takes what was written, in order")
        }
    }

    @Test func theIdleClockStandsStillWhileTheTransportWaitsForTheConsumer() throws {
        let now = ContinuousClock.now + .seconds(100)
        let deadline = now + .seconds(30)
        for name in Self.states.keys.sorted() {
            let machine = try Self.machine(name)
            let wake = machine.wake(idle: .seconds(10), deadline: deadline, now: now)
            let ended = name.hasPrefix("finished") || name.hasPrefix("failed")
            switch name {
            case _ where ended: #expect(wake == nil, "\(name)")
            case "streaming 4B+transport": #expect(wake == now + .seconds(10), "\(name)")
            default: #expect(wake == machine.lastActivity + .seconds(10), "\(name)")
            }
            #expect(machine.wake(idle: nil, deadline: nil, now: now) == nil)
            #expect(machine.wake(idle: nil, deadline: deadline, now: now) == (ended ? nil : deadline))
        }
    }

    static func name(of machine: Machine) -> String {
        let bytes = machine.buffer.bytes
        return switch machine.state {
        case .awaitingHead(let consumer): consumer == nil ? "awaiting" : "awaiting+consumer"
        case .streaming(_, .nobody): "streaming \(bytes)B"
        case .streaming(_, .consumer): "streaming \(bytes)B+consumer"
        case .streaming(_, .transport): "streaming \(bytes)B+transport"
        case .finished: "finished \(bytes)B"
        case .failed(let head, let error): "failed\(head == nil ? "(no head)" : "") \(errorName(error)) \(bytes)B"
        }
    }

    static func errorName(_ error: HTTPClientError) -> String {
        switch error {
        case .cancelled: "cancelled"
        case .timedOut: "timedOut"
        case .invalidResponse: "invalidResponse"
        case .responseTooLarge: "responseTooLarge"
        default: "\(error)"
        }
    }
}

private func describe(_ action: StreamSinkStateTests.Machine.Action) -> String {
    switch action {
    case .none: "none"
    case .resume(let waiter): "resume \(waiter)"
    case .refuse(let error): "refuse \(StreamSinkStateTests.errorName(error))"
    case .end(let waiter, let tasks, let error):
        "end" + (waiter.map { " resume \($0)" } ?? "") + " cancel \(tasks)"
            + (error.map { " refuse \(StreamSinkStateTests.errorName($0))" } ?? "")
    case .cancel(let task): "cancel \(task)"
    }
}

private func describe(_ next: StreamSinkStateTests.Machine.Next) -> String {
    switch next {
    case .piece(let piece, let transport): "piece \(String(decoding: piece, as: UTF8.self))" + (transport.map { ", resume \($0)" } ?? "")
    case .end: "end"
    case .failure(let error): "failure \(StreamSinkStateTests.errorName(error))"
    case .wait: "wait"
    }
}

private func describe(_ demand: StreamSinkStateTests.Machine.Demand) -> String {
    switch demand {
    case .room: "room"
    case .wait: "wait"
    case .failure(let error): "failure \(StreamSinkStateTests.errorName(error))"
    }
}

private func describe(_ head: Result<ResponseHead, HTTPClientError>?) -> String {
    switch head {
    case nil: "wait"
    case .success(let head): "head \(head.statusCode)"
    case .failure(let error): "failure \(StreamSinkStateTests.errorName(error))"
    }
}
