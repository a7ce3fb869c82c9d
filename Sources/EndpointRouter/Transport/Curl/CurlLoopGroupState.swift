import Foundation

/// Which loop of a ``CurlTransport`` carries each new call, and whether the group still takes calls:
/// the decisions of ``CurlLoopGroup`` without any I/O, so that every transition can be tested as a table.
///
/// A call goes to the loop with the fewest calls in flight **to its host**, so that 64 calls to one
/// host use every loop (issue 41: one loop thread was the bottleneck). Among those equally loaded for
/// the host it prefers the loop that carried the host's last call, whose connection is likely idle
/// and reusable: calls one after another to one host stay on one loop and one connection, as they
/// did with a single loop. Then the loop with the fewest calls overall, then the lowest.
///
/// The shell holds it under a lock; callers' threads change it, never a loop thread.
struct CurlLoopGroupState {
    /// The calls in flight to one host, per loop, and the loop of its latest call (`nil` for a host
    /// not seen yet, which has no connection to prefer).
    struct HostLoad: Equatable {
        var inFlight: [Int]
        var lastLoop: Int?
        /// The host's id in the loops' admission (``CurlAdmissionState``), which hashes it for every
        /// event of a transfer: an integer's hash costs a fraction of the host text's (about 530
        /// instructions a lookup, callgrind). Never given to another host, so that what a loop learnt
        /// of a forgotten host (that it multiplexes) does not pass to a new one.
        var origin: Int
    }

    struct Running: Equatable {
        /// Calls in flight per loop, every host together.
        var inFlight: [Int]
        /// Each host's index in ``loads``, by host key (scheme, host and port).
        var slots: [String: Int] = [:]
        /// By slot: a call's end finds its host's entry by the slot its start was given, with no
        /// hash of the host (about 530 instructions a lookup, callgrind, sequential GET).
        var loads: [HostLoad] = []
        /// Slots of forgotten hosts, for the next new ones.
        var free: [Int] = []
        /// The ``HostLoad/origin`` of the next host seen.
        var nextOrigin = 0
    }

    enum State: Equatable {
        /// Taking calls on `inFlight.count` loops.
        case running(Running)
        /// Shut down: every loop was told to stop, and new calls are refused.
        case shutDown
    }

    enum CallAction: Equatable {
        /// Post the call to the loop at this index; `slot` is its host's, for ``callEnded(slot:loop:)``,
        /// and `origin` its host's ``HostLoad/origin``.
        case send(loop: Int, slot: Int, origin: Int)
        /// Fail the call: the transport was shut down.
        case refuse
    }

    enum ShutdownAction: Equatable {
        /// Tell every loop to stop (each ends its exchanges with the shut-down error).
        case stopLoops
        /// Already shut down: nothing more to do.
        case none
    }

    /// Hosts remembered at most; past it, hosts with nothing in flight are forgotten, so that a
    /// transport calling many hosts keeps a small table (a forgotten host only loses its preference).
    static let hostLimit = 256

    private(set) var state: State

    /// A group of `loopCount` loops (at least one).
    init(loopCount: Int) {
        state = .running(Running(inFlight: Array(repeating: 0, count: max(1, loopCount))))
    }

    /// A new call to `host`: the loop to post it to, or a refusal after shutdown.
    mutating func callStarted(host: String) -> CallAction {
        guard case .running(var running) = state else { return .refuse }
        // The payload leaves the enum while it changes, so that its table and arrays are changed in
        // place: copied out while `state` still held them, every call copied the host table
        // (callgrind: about 2,000 instructions per call).
        state = .shutDown
        defer { state = .running(running) }
        // One hash of the host, then its entry by slot.
        let chosen: Int
        let slot: Int
        if let known = running.slots[host] {
            slot = known
            chosen = running.loads[slot].bestLoop(inFlight: running.inFlight)
            running.loads[slot].inFlight[chosen] += 1
            running.loads[slot].lastLoop = chosen
        } else {
            if running.slots.count >= Self.hostLimit { running.forgetIdleHosts() }
            chosen = Self.leastLoaded(running.inFlight)
            var load = HostLoad(inFlight: Array(repeating: 0, count: running.inFlight.count), lastLoop: chosen, origin: running.nextOrigin)
            running.nextOrigin &+= 1
            load.inFlight[chosen] = 1
            if let reused = running.free.popLast() {
                slot = reused
                running.loads[slot] = load
            } else {
                slot = running.loads.count
                running.loads.append(load)
            }
            running.slots[host] = slot
        }
        running.inFlight[chosen] += 1
        return .send(loop: chosen, slot: slot, origin: running.loads[slot].origin)
    }

    /// The call given `slot` and `loop` by ``callStarted(host:)`` has its outcome: it no longer
    /// counts toward that loop's load. A host with a call in flight keeps its slot.
    mutating func callEnded(slot: Int, loop: Int) {
        guard case .running(var running) = state else { return }
        state = .shutDown
        defer { state = .running(running) }
        guard running.inFlight.indices.contains(loop) else { return }
        running.inFlight[loop] = max(0, running.inFlight[loop] - 1)
        guard running.loads.indices.contains(slot) else { return }
        running.loads[slot].inFlight[loop] = max(0, running.loads[slot].inFlight[loop] - 1)
    }

    /// `shutdown()` or the transport's end: stop every loop, once.
    mutating func shutdown() -> ShutdownAction {
        guard case .running = state else { return .none }
        state = .shutDown
        return .stopLoops
    }

    /// The per-host connection limit of each loop: `maximum` split across at most `loopCount`
    /// loops, each with at least one connection, so that the group together opens no more than
    /// `maximum` connections to a host, as one loop would. Its count is the number of loops.
    static func connectionShares(of maximum: Int, across loopCount: Int) -> [Int] {
        let maximum = max(1, maximum)
        let count = min(max(1, loopCount), maximum)
        return (0..<count).map { maximum / count + ($0 < maximum % count ? 1 : 0) }
    }

    /// The loop for a host not seen yet: fewer calls overall, then the lower index (what
    /// ``HostLoad/bestLoop(inFlight:)`` picks with no call to the host and no last loop).
    static func leastLoaded(_ inFlight: [Int]) -> Int {
        var chosen = 0
        for loop in inFlight.indices where inFlight[loop] < inFlight[chosen] { chosen = loop }
        return chosen
    }

    /// The origin of `url` as its text spells it, up to the path: scheme, user, host and port.
    ///
    /// Read off `absoluteString` rather than from `scheme`, `host` and `port`, which cost about 4,000
    /// instructions a call on Linux (callgrind), and this runs once per call. Two spellings of one
    /// origin (`http://a` and `http://a:80`, or letters in another case) get two keys: each is then
    /// bounded on its own here, and libcurl's own per-host limit still bounds them together.
    static func hostKey(of url: URL) -> String {
        let text = url.absoluteString
        // Over the text's bytes in place (a native string's are contiguous): walking `utf8` by its
        // generic indices and cutting a substring cost about 900 instructions a call more (callgrind,
        // `SIDES=library Benchmarks/instructions curl`, sequential GET: 208,753 -> 207,834).
        if let key = text.utf8.withContiguousStorageIfAvailable(origin(in:)) { return key }
        return Array(text.utf8).withUnsafeBufferPointer(origin(in:))
    }

    /// The origin at the start of a URL's text: up to the first `/`, `?` or `#` after the scheme's
    /// `:` and its slashes; the whole text when it has no `:`.
    private static func origin(in bytes: UnsafeBufferPointer<UInt8>) -> String {
        var end = bytes.count
        if var index = bytes.firstIndex(of: UInt8(ascii: ":")) {
            index += 1
            while index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
            while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?"),
                bytes[index] != UInt8(ascii: "#")
            {
                index += 1
            }
            end = index
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    }

}

extension CurlLoopGroupState.Running {
    /// The load of `host`, if remembered: the table read by host, as its tests read it.
    func load(of host: String) -> CurlLoopGroupState.HostLoad? { slots[host].map { loads[$0] } }

    /// Forgets the hosts with nothing in flight: their slots go to the next new hosts.
    fileprivate mutating func forgetIdleHosts() {
        for (host, slot) in slots where !loads[slot].inFlight.contains(where: { $0 > 0 }) {
            slots[host] = nil
            free.append(slot)
        }
    }
}

extension CurlLoopGroupState.HostLoad {
    /// The loop for the host's next call: fewer calls to the host; then the host's last loop; then
    /// fewer calls overall (`inFlight`); then the lower index.
    func bestLoop(inFlight overall: [Int]) -> Int {
        var chosen = 0
        for loop in 1..<max(1, inFlight.count) where isBetter(loop, than: chosen, overall: overall) { chosen = loop }
        return chosen
    }

    private func isBetter(_ loop: Int, than other: Int, overall: [Int]) -> Bool {
        if inFlight[loop] != inFlight[other] { return inFlight[loop] < inFlight[other] }
        if loop == lastLoop || other == lastLoop { return loop == lastLoop }
        return overall[loop] < overall[other]
    }
}
