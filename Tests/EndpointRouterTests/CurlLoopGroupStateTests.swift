import Foundation
import Testing

@testable import EndpointRouter

/// Every event of ``CurlLoopGroupState`` without threads, libcurl or a network: which loop each call
/// goes to, what ending a call changes, and shutdown.
struct CurlLoopGroupStateTests {
    typealias Machine = CurlLoopGroupState

    /// Starts `count` calls to `host` and returns the loop of each.
    static func start(_ count: Int, to host: String, on machine: inout Machine) -> [Int] {
        (0..<count).map { _ in
            guard case .send(let loop, _, _) = machine.callStarted(host: host) else { return -1 }
            return loop
        }
    }

    @Test func oneLoopCarriesEveryCall() {
        var machine = Machine(loopCount: 1)
        #expect(Self.start(10, to: "a", on: &machine) == Array(repeating: 0, count: 10))
    }

    @Test func aLoopCountBelowOneMakesOneLoop() {
        var machine = Machine(loopCount: 0)
        #expect(machine.callStarted(host: "a") == .send(loop: 0, slot: 0, origin: 0))
        let load = Machine.HostLoad(inFlight: [1], lastLoop: 0, origin: 0)
        #expect(machine.state == .running(.init(inFlight: [1], slots: ["a": 0], loads: [load], nextOrigin: 1)))
    }

    /// Issue 41: calls to one host at once use every loop, evenly.
    @Test(arguments: [2, 3, 4])
    func callsToOneHostAtOnceSpreadEvenly(loops: Int) {
        var machine = Machine(loopCount: loops)
        let chosen = Self.start(64 - 64 % loops, to: "http://a:80", on: &machine)
        for loop in 0..<loops { #expect(chosen.filter { $0 == loop }.count == 64 / loops, "\(chosen)") }
    }

    /// Calls one after another stay on one loop, whose connection to the host is idle and reused.
    @Test func callsOneAfterAnotherStayOnOneLoop() {
        var machine = Machine(loopCount: 4)
        for _ in 0..<5 {
            #expect(machine.callStarted(host: "a") == .send(loop: 0, slot: 0, origin: 0))
            machine.callEnded(slot: 0, loop: 0)
        }
        let idle = Machine.HostLoad(inFlight: [0, 0, 0, 0], lastLoop: 0, origin: 0)
        #expect(machine.state == .running(.init(inFlight: [0, 0, 0, 0], slots: ["a": 0], loads: [idle], nextOrigin: 1)))
    }

    /// Once idle, a host goes back to the loop of its latest call rather than to the lowest.
    @Test func anIdleHostPrefersItsLatestLoop() {
        var machine = Machine(loopCount: 2)
        #expect(Self.start(2, to: "a", on: &machine) == [0, 1])
        machine.callEnded(slot: 0, loop: 0)
        machine.callEnded(slot: 0, loop: 1)
        #expect(machine.callStarted(host: "a") == .send(loop: 1, slot: 0, origin: 0))
    }

    /// A new host goes where the fewest calls are, every host together.
    @Test func aNewHostGoesToTheLeastLoadedLoop() {
        var machine = Machine(loopCount: 3)
        #expect(Self.start(1, to: "a", on: &machine) == [0])
        #expect(Self.start(1, to: "b", on: &machine) == [1])
        #expect(Self.start(1, to: "c", on: &machine) == [2])
        machine.callEnded(slot: 1, loop: 1)
        #expect(Self.start(1, to: "d", on: &machine) == [1])
    }

    /// An end never counts below zero, and an end for a loop that does not exist changes nothing.
    @Test func endsThatDoNotMatchAStartChangeNothingBelowZero() {
        var machine = Machine(loopCount: 2)
        machine.callEnded(slot: 0, loop: 0)
        machine.callEnded(slot: 0, loop: 5)
        machine.callEnded(slot: 0, loop: -1)
        #expect(machine.state == .running(.init(inFlight: [0, 0])))
        _ = machine.callStarted(host: "a")
        machine.callEnded(slot: 0, loop: 0)
        machine.callEnded(slot: 0, loop: 0)
        machine.callEnded(slot: 7, loop: 0)
        let idle = Machine.HostLoad(inFlight: [0, 0], lastLoop: 0, origin: 0)
        #expect(machine.state == .running(.init(inFlight: [0, 0], slots: ["a": 0], loads: [idle], nextOrigin: 1)))
    }

    @Test func shutdownStopsTheLoopsOnceAndRefusesLaterCalls() {
        var machine = Machine(loopCount: 2)
        _ = Self.start(3, to: "a", on: &machine)
        #expect(machine.shutdown() == .stopLoops)
        #expect(machine.state == .shutDown)
        #expect(machine.shutdown() == .none)
        #expect(machine.callStarted(host: "a") == .refuse)
        machine.callEnded(slot: 0, loop: 0)
        #expect(machine.state == .shutDown)
    }

    /// Past ``CurlLoopGroupState/hostLimit`` hosts, those with nothing in flight are forgotten; a host
    /// with a call in flight is kept.
    @Test func theHostTableStaysSmall() {
        var machine = Machine(loopCount: 2)
        _ = machine.callStarted(host: "busy")
        for index in 0..<(Machine.hostLimit * 3) {
            let host = "idle\(index)"
            guard case .send(let loop, let slot, _) = machine.callStarted(host: host) else {
                Issue.record("refused")
                return
            }
            machine.callEnded(slot: slot, loop: loop)
        }
        guard case .running(let running) = machine.state else {
            Issue.record("\(machine.state)")
            return
        }
        #expect(running.slots.count <= Machine.hostLimit)
        #expect(running.loads.count <= Machine.hostLimit, "a forgotten host's slot is reused")
        #expect(running.load(of: "busy")?.inFlight.reduce(0, +) == 1)
        #expect(running.inFlight.reduce(0, +) == 1)
        // A forgotten host seen again is a new host to the loops' admission: another origin.
        #expect(running.load(of: "busy")?.origin == 0)
        guard case .send(let loop, _, let origin) = machine.callStarted(host: "idle0") else {
            Issue.record("refused")
            return
        }
        #expect(loop == 1 && origin == Machine.hostLimit * 3 + 1)
    }

    /// Each host its own origin, kept while the host is remembered.
    @Test func eachHostHasItsOwnOrigin() {
        var machine = Machine(loopCount: 2)
        #expect(machine.callStarted(host: "a") == .send(loop: 0, slot: 0, origin: 0))
        #expect(machine.callStarted(host: "b") == .send(loop: 1, slot: 1, origin: 1))
        machine.callEnded(slot: 0, loop: 0)
        #expect(machine.callStarted(host: "a") == .send(loop: 0, slot: 0, origin: 0))
    }

    /// The per-host limit split between the loops adds up to it, each loop with at least one.
    @Test(arguments: [
        (6, 2, [3, 3]), (6, 4, [2, 2, 1, 1]), (5, 2, [3, 2]), (1, 4, [1]), (2, 8, [1, 1]), (0, 0, [1]), (-3, 2, [1]), (6, 1, [6]),
    ])
    func connectionSharesAddUpToTheLimit(maximum: Int, loops: Int, shares: [Int]) {
        #expect(Machine.connectionShares(of: maximum, across: loops) == shares)
    }

    @Test func hostKeysSeparateSchemeHostAndPort() throws {
        let keys = try ["http://a:80/x", "http://a:80/y?q", "https://a:80/x", "http://a:81/x", "http://b:80/x", "http://a/x"].map {
            Machine.hostKey(of: try #require(URL(string: $0)))
        }
        #expect(keys[0] == keys[1])
        #expect(Set(keys).count == keys.count - 1, "\(keys)")
    }

    @Test(arguments: [
        ("http://a:80/x/y", "http://a:80"), ("http://a:80", "http://a:80"), ("http://a?q=/x", "http://a"),
        ("http://a#/x", "http://a"), ("https://u:p@a:8443/x", "https://u:p@a:8443"), ("http://[::1]:81/x", "http://[::1]:81"),
        ("http://xn--bcher-kva.example/x", "http://xn--bcher-kva.example"),
    ])
    func theHostKeyIsTheOriginAsWritten(url: String, key: String) throws {
        #expect(Machine.hostKey(of: try #require(URL(string: url))) == key)
    }
}
