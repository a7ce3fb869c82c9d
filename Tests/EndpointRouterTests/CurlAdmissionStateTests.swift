import Testing

@testable import EndpointRouter

/// Every event of ``CurlAdmissionState`` without threads, libcurl or a network: the per-host limit,
/// the order held transfers start in, cancels, HTTP/2 lifting the limit, and the loop's end.
struct CurlAdmissionStateTests {
    /// A transfer as a plain number: the loop's carry an easy handle and an exchange, which the
    /// machine only stores and hands back, so a number written as a literal tests it the same.
    struct Transfer: Identifiable, Equatable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        let id: Int
        init(id: Int) { self.id = id }
        init(integerLiteral id: Int) { self.id = id }
        var description: String { "\(id)" }
    }

    typealias Machine = CurlAdmissionState<Transfer, String>

    /// Adds `transfers` to `host` and returns what each got.
    static func add(_ transfers: some Sequence<Int>, to host: String, on machine: inout Machine) -> [Machine.AddAction] {
        transfers.map { machine.add(Transfer(id: $0), host: host) }
    }

    @Test func theLimitIsRespectedAndTheRestHeld() {
        var machine = Machine(limit: 3)
        #expect(Self.add(0..<5, to: "a", on: &machine) == [.admit, .admit, .admit, .hold, .hold])
        #expect(machine.hosts["a"] == .init(admitted: 3, held: [3, 4], multiplexes: false))
        // What each is shows in what its end does: a held one only leaves the queue, an admitted
        // one leaves the multi and hands its place, with the held transfer itself, to the next.
        #expect(machine.remove(3) == .dropHeld)
        #expect(machine.remove(0) == .removeAndAdmit([4]))
    }

    @Test func aLimitBelowOneIsOne() {
        var machine = Machine(limit: 0)
        #expect(Self.add(0..<2, to: "a", on: &machine) == [.admit, .hold])
    }

    /// Each transfer that leaves starts the oldest held one, so the order is the order of `add`.
    @Test func heldTransfersStartOldestFirst() {
        var machine = Machine(limit: 2)
        _ = Self.add(0..<6, to: "a", on: &machine)
        #expect(machine.remove(1) == .removeAndAdmit([2]))
        #expect(machine.remove(0) == .removeAndAdmit([3]))
        #expect(machine.remove(3) == .removeAndAdmit([4]))
        #expect(machine.remove(2) == .removeAndAdmit([5]))
        #expect(machine.remove(4) == .removeAndAdmit([]))
        #expect(machine.remove(5) == .removeAndAdmit([]))
        #expect(machine.hosts["a"] == .init(admitted: 0, held: [], multiplexes: false) && machine.transfers.isEmpty)
    }

    /// A new transfer queues behind held ones even when a place is free: none jumps the queue.
    @Test func aNewTransferNeverOvertakesHeldOnes() {
        var machine = Machine(limit: 1)
        _ = Self.add(0..<3, to: "a", on: &machine)
        #expect(machine.remove(0) == .removeAndAdmit([1]))
        #expect(machine.add(3, host: "a") == .hold)
        #expect(machine.remove(1) == .removeAndAdmit([2]))
        #expect(machine.remove(2) == .removeAndAdmit([3]))
    }

    /// A held transfer cancelled leaves the queue without reaching the multi, and takes no place.
    @Test func cancellingAHeldTransferDropsIt() {
        var machine = Machine(limit: 1)
        _ = Self.add(0..<4, to: "a", on: &machine)
        #expect(machine.remove(2) == .dropHeld)
        #expect(machine.remove(2) == .none)
        #expect(machine.hosts["a"] == .init(admitted: 1, held: [1, 3], multiplexes: false))
        #expect(machine.remove(0) == .removeAndAdmit([1]))
        #expect(machine.remove(1) == .removeAndAdmit([3]))
    }

    /// A transfer never added (its set-up failed) is nothing to the machine.
    @Test func removingAnUnknownTransferDoesNothing() {
        var machine = Machine(limit: 1)
        #expect(machine.remove(7) == .none)
        #expect(machine.completed(7, multiplexed: true) == [])
    }

    /// A transfer done over HTTP/2 releases every held one of its host and lifts the limit.
    @Test func http2ReleasesEveryHeldTransferAndLiftsTheLimit() {
        var machine = Machine(limit: 2)
        _ = Self.add(0..<6, to: "a", on: &machine)
        #expect(machine.completed(0, multiplexed: true) == [2, 3, 4, 5])
        #expect(machine.remove(0) == .removeAndAdmit([]))
        #expect(Self.add(6..<10, to: "a", on: &machine) == [.admit, .admit, .admit, .admit])
        #expect(machine.hosts["a"] == .init(admitted: 9, held: [], multiplexes: true))
        // Remembered while idle: the next burst is not held either.
        for transfer in 1..<10 { _ = machine.remove(transfer) }
        #expect(Self.add(10..<14, to: "a", on: &machine) == [.admit, .admit, .admit, .admit])
    }

    /// HTTP/1 keeps the limit; a failure before any response says nothing and changes nothing.
    @Test func http1OrNoResponseKeepsTheLimit() {
        var machine = Machine(limit: 1)
        _ = Self.add(0..<3, to: "a", on: &machine)
        #expect(machine.completed(0, multiplexed: false) == [])
        #expect(machine.remove(0) == .removeAndAdmit([1]))
        #expect(machine.completed(1, multiplexed: true) == [2])
        #expect(machine.completed(2, multiplexed: nil) == [])
        #expect(machine.hosts["a"]?.multiplexes == true)
        // The same name answering HTTP/1 again gets the limit back.
        #expect(machine.completed(2, multiplexed: false) == [])
        _ = machine.remove(1)
        _ = machine.remove(2)
        #expect(Self.add(3..<5, to: "a", on: &machine) == [.admit, .hold])
    }

    @Test func hostsAreIndependent() {
        var machine = Machine(limit: 1)
        #expect(Self.add([0, 1], to: "http://a:", on: &machine) == [.admit, .hold])
        #expect(Self.add([2, 3], to: "http://b:", on: &machine) == [.admit, .hold])
        #expect(machine.completed(2, multiplexed: true) == [3])
        #expect(machine.remove(2) == .removeAndAdmit([]))
        #expect(machine.remove(0) == .removeAndAdmit([1]))
        #expect(machine.hosts["http://a:"]?.multiplexes == false)
    }

    /// The loop's end returns every held transfer once; nothing is admitted or released after it.
    @Test func closingReturnsEveryHeldTransfer() {
        var machine = Machine(limit: 1)
        _ = Self.add(0..<3, to: "a", on: &machine)
        _ = Self.add(3..<5, to: "b", on: &machine)
        #expect(machine.close() == [1, 2, 4])
        #expect(machine.close() == [])
        #expect(machine.remove(0) == .none)
        #expect(machine.remove(1) == .none)
        #expect(machine.completed(3, multiplexed: true) == [])
        #expect(machine.add(5, host: "a") == .refuse)
    }

    /// Calls one after another to a host keep its entry: no table change per call, and each admitted.
    @Test func anIdleHostKeepsItsEntryForItsNextTransfer() {
        var machine = Machine(limit: 1)
        for transfer in 0..<5 {
            #expect(machine.add(Transfer(id: transfer), host: "a") == .admit)
            #expect(machine.completed(transfer, multiplexed: false) == [])
            #expect(machine.remove(transfer) == .removeAndAdmit([]))
            #expect(machine.hosts == ["a": .init(admitted: 0, held: [], multiplexes: false)])
        }
        #expect(machine.transfers.isEmpty)
    }

    /// Idle hosts that multiplex are forgotten past the limit; hosts in use never are.
    @Test func idleHostsAreForgottenPastTheLimit() {
        var machine = Machine(limit: 1)
        _ = machine.add(-1, host: "busy")
        for host in 0..<Machine.hostLimit - 1 {
            _ = machine.add(Transfer(id: host), host: "h\(host)")
            _ = machine.completed(host, multiplexed: true)
            _ = machine.remove(host)
        }
        #expect(machine.hosts.count == Machine.hostLimit)
        _ = machine.add(1_000, host: "new")
        #expect(machine.hosts.count == 2)
        #expect(machine.hosts["busy"]?.admitted == 1)
    }
}
