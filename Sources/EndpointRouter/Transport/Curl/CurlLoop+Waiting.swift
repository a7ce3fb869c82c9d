#if os(Linux)
    import Foundation

    /// How a ``CurlLoop`` waits for what other threads hand it: its inbox, and what it does between
    /// its last transfer's end and the next call, as its ``CurlIdleSpin`` says: spin, doze then
    /// spin, or neither (a wait in `curl_multi_poll`, in `run()`).
    extension CurlLoop {
        /// The commands posted to the loop, and how the loop waits for them: guarded by ``inbox``'s lock.
        struct Inbox {
            var commands: [Command] = []
            /// False once the loop stopped: the multi handle is gone and nothing more is taken.
            var isOpen = true
            /// Whether the loop waits in `curl_multi_poll` (or is about to), so that a command must
            /// wake it; while it runs it takes the commands without a wake-up.
            var isWaiting = false
            /// Whether the loop dozes through an idle stretch (``CurlIdleSpin``), so that a command must
            /// ring ``dozeBell``.
            var isDozing = false
            /// When a command woke the loop from a wait or a doze: when the call came, not when the
            /// loop got to it, so that the wake-up's latency does not stretch the gap ``CurlIdleSpin`` learns.
            var wokenAt: UInt64?
        }

        /// Looks at the inbox until `deadline`, and stops at the first command.
        func spin(until deadline: UInt64) {
            while Self.now() < deadline {
                if inboxHasCommands.load(ordering: .acquiring) { return }
            }
        }

        /// Sleeps until `wake` or the first command, then spins until `deadline`.
        ///
        /// A command posted while the loop dozes rings ``dozeBell`` (see `post(_:)`): the flag is set
        /// under the inbox's lock, where `post` reads it, and the wait checks for commands under the
        /// bell's lock, which `post` takes to ring it, so no command is left waiting for the doze to end.
        /// The timed wait's deadline is on the wall clock: a clock set back mid-doze lengthens that
        /// wait, which costs nothing but the spin, since a dozing loop has no transfer and every
        /// command rings it.
        func doze(until wake: UInt64, thenSpinUntil deadline: UInt64) {
            let dozing = inbox.withLock { inbox in
                guard inbox.commands.isEmpty else { return false }
                inbox.isDozing = true
                return true
            }
            guard dozing else { return }
            dozeBell.lock()
            while !inboxHasCommands.load(ordering: .acquiring) {
                let now = Self.now()
                guard now < wake else { break }
                _ = dozeBell.wait(until: Date(timeIntervalSinceNow: Double(wake - now) / 1_000_000_000))
            }
            dozeBell.unlock()
            inbox.withLock { $0.isDozing = false }
            spin(until: deadline)
        }

        /// A monotonic clock in nanoseconds, for ``CurlIdleSpin``: read only around an idle stretch.
        static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    }
#endif
