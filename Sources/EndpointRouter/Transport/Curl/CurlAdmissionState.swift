/// Which transfers of one ``CurlLoop`` go on its multi handle now and which wait, per host: the
/// decisions of the loop's admission without any I/O, so that every transition can be tested as a table.
///
/// Why: past `CURLMOPT_MAX_HOST_CONNECTIONS`, libcurl parks transfers in its own pending queue, and a
/// transfer added just as a connection frees up takes it ahead of those already waiting, so that
/// with 64 calls in flight to one HTTP/1.1 host some waited many times as long as the rest (p99 6–22 ms
/// against a p50 of 1.6 ms). Holding them here, oldest first, keeps libcurl's queue empty and the
/// order ours: at most `limit` transfers of a host are on the multi, the connections libcurl may open.
///
/// A host whose transfers use HTTP/2 multiplexes them on one connection: once one completes over
/// HTTP/2, every held transfer of the host goes on the multi and none is held from then on. A host
/// not seen yet is held to the limit until its first transfer completes, since nothing says before
/// then whether it multiplexes: only its first burst waits for one exchange.
///
/// Only the loop thread changes it; the loop performs each action it returns. It is the one record of
/// which transfers are held: a held transfer lives in its host's queue, whole (the loop's easy handle
/// and exchange), and comes back in the action that starts or ends it, so the loop keeps no table of
/// its own. Events after `add` name a transfer by its `id`, the easy handle libcurl reports it by.
///
/// `Origin` names a host: the loop group's integer id of it (``CurlLoopGroupState/HostLoad/origin``),
/// whose hash costs a fraction of the host text's.
struct CurlAdmissionState<Transfer: Identifiable, Origin: Hashable & Comparable> {
    struct Host {
        /// Transfers of the host on the multi.
        var admitted = 0
        /// Transfers waiting for one of those to leave, oldest first.
        var held: [Transfer] = []
        /// Whether a transfer of the host completed over HTTP/2 (or 3): no limit then.
        var multiplexes = false

        /// Admits `transfer` (true) or queues it behind the held ones.
        mutating func add(_ transfer: Transfer, limit: Int) -> Bool {
            guard multiplexes || (admitted < limit && held.isEmpty) else {
                held.append(transfer)
                return false
            }
            admitted += 1
            return true
        }

        /// One admitted transfer left: the held ones its place (or, multiplexing, every one) admits.
        mutating func leave(limit: Int) -> [Transfer] {
            admitted -= 1
            let count = multiplexes ? held.count : min(held.count, max(0, limit - admitted))
            let released = Array(held.prefix(count))
            held.removeFirst(count)
            admitted += count
            return released
        }

        /// Every held transfer, admitted.
        mutating func releaseAll() -> [Transfer] {
            let released = held
            held = []
            admitted += released.count
            return released
        }
    }

    /// A transfer added and not yet removed: its host, and whether it is on the multi (held, it is in
    /// its host's queue).
    struct Known: Equatable {
        var host: Origin
        var isAdmitted: Bool
    }

    /// By host (its origin id). Stored properties, not an enum's payload:
    /// an event changes them in place, with no copy of the tables per transfer.
    private(set) var hosts: [Origin: Host] = [:]
    private(set) var transfers: [Transfer.ID: Known] = [:]
    /// The loop stopped: nothing goes on the multi any more.
    private(set) var isClosed = false

    enum AddAction: Equatable {
        /// Put the transfer on the multi.
        case admit
        /// Keep it until one of its host's transfers leaves.
        case hold
        /// The loop stopped: end it as shut down.
        case refuse
    }

    enum RemoveAction {
        /// Not added (or already removed): nothing to do.
        case none
        /// It was held and is out of the queue: it never reached the multi, nothing to take off.
        case dropHeld
        /// Take it off the multi, then put these held transfers on it, in this order.
        case removeAndAdmit([Transfer])
    }

    /// Transfers at once on the multi per host that does not multiplex (at least one).
    let limit: Int
    /// Hosts remembered at most; past it the idle ones are forgotten, and a forgotten multiplexing
    /// host only waits for its first transfer again.
    static var hostLimit: Int { 256 }

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A transfer to `host` is ready to start.
    mutating func add(_ transfer: Transfer, host: Origin) -> AddAction {
        guard !isClosed else { return .refuse }
        // One hash of the host per event, then its entry by index, changed in place (a copy of the
        // entry would copy its queue): the tables cost about 6,000 instructions a call when each
        // event looked the host up several times and an idle host was dropped and added back.
        guard let index = hosts.index(forKey: host) else {
            if hosts.count >= Self.hostLimit { forgetIdleHosts() }
            var entry = Host()
            let admits = entry.add(transfer, limit: limit)
            hosts[host] = entry
            transfers[transfer.id] = Known(host: host, isAdmitted: admits)
            return admits ? .admit : .hold
        }
        let admits = hosts.values[index].add(transfer, limit: limit)
        transfers[transfer.id] = Known(host: host, isAdmitted: admits)
        return admits ? .admit : .hold
    }

    /// libcurl reports the transfer `id` done, having used HTTP/2 or later (`multiplexed`), HTTP/1, or no
    /// HTTP at all (`nil`: it failed before a response, which says nothing of the host). Returns the
    /// held transfers to put on the multi now. The transfer itself stays on it until removed.
    mutating func completed(_ id: Transfer.ID, multiplexed: Bool?) -> [Transfer] {
        guard !isClosed, let multiplexed, let host = transfers[id]?.host, let index = hosts.index(forKey: host) else {
            return []
        }
        // A host that answers HTTP/1 again (another server behind the name) gets the limit back.
        if hosts.values[index].multiplexes != multiplexed { hosts.values[index].multiplexes = multiplexed }
        guard multiplexed, !hosts.values[index].held.isEmpty else { return [] }
        let released = hosts.values[index].releaseAll()
        for held in released { transfers[held.id] = Known(host: host, isAdmitted: true) }
        return released
    }

    /// The transfer `id` ends (done or cancelled): off the multi if it was on it, and its place goes to
    /// the oldest held transfer of its host. The host's entry stays, idle, until the table is full.
    mutating func remove(_ id: Transfer.ID) -> RemoveAction {
        guard !isClosed, let known = transfers.removeValue(forKey: id) else { return .none }
        guard let index = hosts.index(forKey: known.host) else { return known.isAdmitted ? .removeAndAdmit([]) : .dropHeld }
        guard known.isAdmitted else {
            hosts.values[index].held.removeAll { $0.id == id }
            return .dropHeld
        }
        let released = hosts.values[index].leave(limit: limit)
        for next in released { transfers[next.id] = Known(host: known.host, isAdmitted: true) }
        return .removeAndAdmit(released)
    }

    /// The loop stops: every held transfer, oldest first per host, to be ended by the loop; nothing
    /// goes on the multi from then on.
    mutating func close() -> [Transfer] {
        guard !isClosed else { return [] }
        isClosed = true
        let held = hosts.keys.sorted().flatMap { hosts[$0]?.held ?? [] }
        hosts = [:]
        transfers = [:]
        return held
    }

    private mutating func forgetIdleHosts() {
        hosts = hosts.filter { $0.value.admitted > 0 || !$0.value.held.isEmpty }
    }
}

/// Tests compare a host's queue whole; the loop's transfers (a handle and its exchange) need not be
/// comparable, so only plain values are.
extension CurlAdmissionState.Host: Equatable where Transfer: Equatable {}

/// Tests compare actions whole, with the transfers they release; the loop switches on them instead.
extension CurlAdmissionState.RemoveAction: Equatable where Transfer: Equatable {}
