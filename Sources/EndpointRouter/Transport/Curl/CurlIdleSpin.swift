#if os(Linux)
    /// Whether a ``CurlLoop`` whose last transfer just ended stays awake for the next call before it
    /// sleeps in `curl_multi_poll`, decided from how soon the last call came.
    ///
    /// A caller making calls one after another posts its next one a few tens of microseconds after
    /// its last ended: it decodes, then builds the request. A loop already asleep then costs that call
    /// a thread wake-up, which the raw single-threaded libcurl loop never pays. Spinning for a moment
    /// catches the call instead (measured: 1.16–1.29× sequential requests a second). A caller that
    /// takes longer between calls (decoding a 100-item list: about 250 µs) is met by a doze: the loop
    /// sleeps on a timer until a budget before the call is due, then spins, so it is awake when the
    /// call comes (issue 41's seventh pass, `Benchmarks/README.md`). After a gap of more than ten
    /// budgets the loop just sleeps, so a transport that carries a call now and then burns no CPU
    /// waiting for one.
    ///
    /// Times are nanoseconds of a monotonic clock, given by the loop, so that every transition is
    /// tested without a clock or a thread.
    struct CurlIdleSpin: Equatable {
        enum State: Equatable {
            /// Transfers run, or commands were taken since the loop last ran out of them.
            case busy
            /// The loop's transfers all ended at `since` and nothing came since.
            case idle(since: UInt64)
        }

        /// What the loop does when it runs out of transfers.
        enum Action: Equatable {
            /// Look at the inbox until this instant, then wait.
            case spin(until: UInt64)
            /// Sleep until the first instant (a command wakes it sooner), then look at the inbox
            /// until the second (`thenSpinUntil`), then wait: the next call is expected a budget
            /// after the first.
            case doze(until: UInt64, thenSpinUntil: UInt64)
            /// Sleep in `curl_multi_poll` at once.
            case wait
        }

        /// How long to spin; 0 never spins.
        let budget: UInt64
        private(set) var state: State = .busy
        /// How long the last idle stretch lasted: until the command came (the loop gives the time a
        /// command woke it, not the later one it took it at); `nil` until one ended. The first spin
        /// is the probe.
        private(set) var lastGap: UInt64?
        /// The stretch before the last one, `nil` until two ended.
        private(set) var gapBefore: UInt64?

        /// When the next call is expected after the loop runs out of transfers: the shorter of the
        /// last two gaps, so that one late call among quick ones (a caller's thread slow to wake)
        /// does not turn a spin that catches the quick ones into a doze they would have to wake.
        var expectedGap: UInt64? {
            guard let lastGap else { return nil }
            guard let gapBefore else { return lastGap }
            return min(lastGap, gapBefore)
        }

        /// The longest spin taken: a longer one burns a core for a gain a wake-up (tens of
        /// microseconds) no longer dominates.
        static let longestBudget: UInt64 = 1_000_000

        /// How many budgets long a gap may be for the loop to doze through it and spin at its end:
        /// past that, the wake-up it saves is a few percent of the gap.
        static let dozeHorizon: UInt64 = 10

        init(budget: Duration) {
            let (seconds, attoseconds) = budget.components
            if seconds < 0 || attoseconds < 0 {
                self.budget = 0
            } else if seconds >= 1 {
                self.budget = Self.longestBudget
            } else {
                self.budget = min(Self.longestBudget, UInt64(attoseconds / 1_000_000_000))
            }
        }

        /// The loop's last transfer ended at `now` and no command waits.
        ///
        /// The next call is expected as long after `now` as the last calls came (``expectedGap``):
        /// within the budget, the loop spins for it; later (a caller decoding a large body between calls), it sleeps
        /// until a budget before then and spins until half a budget after, so that it is awake when
        /// the call comes for at most one and a half budgets of CPU. A budget early, not half: a
        /// timed wait ends some tens of microseconds late on a virtual machine, and woken half a
        /// budget early the loop missed enough calls to lose most of the gain (`Benchmarks/README.md`,
        /// issue 41's seventh pass). Much later, it just waits.
        mutating func ranOutOfTransfers(at now: UInt64) -> Action {
            state = .idle(since: now)
            guard budget > 0 else { return .wait }
            guard let gap = expectedGap, gap > budget else { return .spin(until: now &+ budget) }
            guard gap <= Self.dozeHorizon &* budget else { return .wait }
            return .doze(until: now &+ gap &- budget, thenSpinUntil: now &+ gap &+ budget / 2)
        }

        /// The loop took commands that came at `now`: an idle stretch, if one was running, ends here.
        mutating func tookCommands(at now: UInt64) {
            guard case .idle(let since) = state else { return }
            state = .busy
            gapBefore = lastGap
            // A command posted just before the stretch began is taken after it: no gap, not a wrap.
            lastGap = now > since ? now &- since : 0
        }

        /// Whether ``tookCommands(at:)`` has anything to measure, so that the loop reads the clock
        /// only then.
        var isIdle: Bool { state != .busy }
    }
#endif
