#if os(Linux)
    import Foundation

    /// The loops of one ``CurlTransport``: each a thread with its own multi handle, so that the
    /// transport's transfers run on as many cores as it has loops. Which loop carries a call is
    /// ``CurlLoopGroupState``'s decision; this shell takes it.
    ///
    /// The loops share nothing of libcurl's (no share handle): each has its own connection pool, DNS
    /// cache and TLS sessions. A host's calls one after another stay on one loop and reuse its
    /// connection; calls at once spread, and each loop opens its own connections to the host, within
    /// its part of the per-host limit (``CurlLoopGroupState/connectionShares(of:across:)``).
    final class CurlLoopGroup: @unchecked Sendable {
        /// Immutable after `init`: read from any thread.
        let loops: [CurlLoop]
        private let state: Locked<CurlLoopGroupState>

        /// Starts `loopCount` loops (at most one per connection allowed to a host, at least one), or
        /// returns `nil` when libcurl cannot make a multi handle for one of them.
        init?(loopCount: Int, maximumConnectionsPerHost: Int, idleSpin: Duration) {
            var loops: [CurlLoop] = []
            for share in CurlLoopGroupState.connectionShares(of: maximumConnectionsPerHost, across: loopCount) {
                guard let loop = CurlLoop(maximumConnectionsPerHost: share, idleSpin: idleSpin) else {
                    // No memory for a multi handle: the per-host limit was split for every loop, so
                    // the loops made so far alone would open fewer connections than configured.
                    for loop in loops { loop.stop() }
                    return nil
                }
                loops.append(loop)
            }
            self.loops = loops
            state = Locked(CurlLoopGroupState(loopCount: loops.count))
        }

        /// The loop for a new call to `host` (``CurlLoopGroupState/hostKey(of:)``), with its index and
        /// the host's slot for ``ended(slot:loop:)``, and the host's id for the loop's admission; `nil`
        /// once shut down.
        func loop(forHost host: String) -> (loop: CurlLoop, index: Int, slot: Int, origin: Int)? {
            switch state.withLock({ $0.callStarted(host: host) }) {
            case .send(let index, let slot, let origin): return (loops[index], index, slot, origin)
            case .refuse: return nil
            }
        }

        /// The call given `slot` and loop `index` by ``loop(forHost:)`` has its outcome.
        func ended(slot: Int, loop index: Int) {
            state.withLock { $0.callEnded(slot: slot, loop: index) }
        }

        /// Stops every loop (idempotent): each ends its exchanges with the shut-down error.
        func shutdown() {
            switch state.withLock({ $0.shutdown() }) {
            case .stopLoops: for loop in loops { loop.stop() }
            case .none: break
            }
        }
    }
#endif
