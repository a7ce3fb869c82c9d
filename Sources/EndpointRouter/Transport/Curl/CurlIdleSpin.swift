#if os(Linux)
    /// Whether a ``CurlLoop`` whose last transfer just ended looks for the next call for a while
    /// before it sleeps in `curl_multi_poll`, decided from how soon the next call came last time.
    ///
    /// A caller making calls one after another posts its next one a few tens of microseconds after
    /// its last ended: it decodes, then builds the request. A loop already asleep then costs that call
    /// a thread wake-up, which the raw single-threaded libcurl loop never pays. Spinning for a moment
    /// catches the call instead (measured: 1.16–1.29× sequential requests a second). Only after a
    /// short gap: a loop whose next call came late spins no more until one comes early again, so a
    /// transport that carries a call now and then burns no CPU waiting for one.
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
            /// Sleep in `curl_multi_poll` at once.
            case wait
        }

        /// How long to spin; 0 never spins.
        let budget: UInt64
        private(set) var state: State = .busy
        /// Whether the last idle stretch ended soon enough that spinning would have caught its end.
        /// Starts true: the first spin is the probe.
        private(set) var spins = true

        /// The longest spin taken: a longer one burns a core for a gain a wake-up (tens of
        /// microseconds) no longer dominates.
        static let longestBudget: UInt64 = 1_000_000

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
        mutating func ranOutOfTransfers(at now: UInt64) -> Action {
            state = .idle(since: now)
            return budget > 0 && spins ? .spin(until: now &+ budget) : .wait
        }

        /// The loop took commands at `now`: an idle stretch, if one was running, ends here.
        ///
        /// A stretch the loop slept through is measured from the loop's side of a wake-up, which
        /// adds the wake-up's own latency to it: such a gap re-enables spinning up to twice the budget.
        mutating func tookCommands(at now: UInt64) {
            guard case .idle(let since) = state else { return }
            state = .busy
            spins = now &- since <= 2 &* budget
        }

        /// Whether ``tookCommands(at:)`` has anything to measure, so that the loop reads the clock
        /// only then.
        var isIdle: Bool { state != .busy }
    }
#endif
