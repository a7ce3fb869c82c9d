#if os(Linux)
    internal import CLibcurl
    import Foundation
    import Synchronization

    /// A thread of a ``CurlTransport`` that calls libcurl: it owns a multi handle, waits in
    /// `curl_multi_poll`, and runs the commands other threads hand it, which wake it with
    /// `curl_multi_wakeup`. Nothing else calls libcurl on its multi or its exchanges' handles, and no
    /// caller's thread ever blocks on it. A transport has several (``CurlLoopGroup``), each with its
    /// own multi handle and connections; an exchange stays on the loop it started on. Past its share
    /// of a host's connections, the loop holds a host's transfers itself and starts them oldest
    /// first (``CurlAdmissionState``), rather than leave them to libcurl's pending queue.
    final class CurlLoop: @unchecked Sendable {
        /// What other threads ask of the loop.
        enum Command {
            case start(CurlExchange, CurlExchange.Continuation)
            case cancel(CurlExchange, HTTPClientError)
            case demand(CurlExchange)
            case stop
        }

        /// A transfer as admission holds it: what the loop needs to start it when its turn comes,
        /// so that admission's queue is the only record of the held ones. Two words, no allocation.
        struct Transfer: Identifiable {
            /// What goes on the multi when admission lets it.
            let easy: UnsafeMutableRawPointer
            /// Kept for its turn: started with the handle, or ended as shut down if the loop stops first.
            let exchange: CurlExchange
            /// libcurl names a transfer by its easy handle, and so do the loop's later events.
            var id: UnsafeMutableRawPointer { easy }
        }

        let inbox = Locked(Inbox())
        /// Whether the inbox holds commands, written under its lock and read without it by the idle
        /// spin: a spin taking the lock in a tight loop held it much of the time (locking and
        /// unlocking were 14 % of the loop thread's samples), so a caller posting a command could
        /// find it taken, sleep on the futex and have to be woken (issue 41).
        let inboxHasCommands = Atomic<Bool>(false)
        /// What a dozing loop waits on: a timed wait, which `curl_multi_poll` (whole milliseconds) is not.
        let dozeBell = NSCondition()
        private let multi: UnsafeMutableRawPointer
        /// The exchanges on the multi, by easy handle. Loop thread only.
        private var running: [UnsafeMutableRawPointer: CurlExchange] = [:]
        /// Which of the exchanges added go on the multi now, per host, and the ones set up and waiting
        /// for their host's turn: not on the multi, so not ``isRunning(_:)``. Loop thread only.
        private var admission: CurlAdmissionState<Transfer, Int>
        /// What a call the loop ends at shutdown fails with: the transport's one message for it.
        private var shutDownError: HTTPClientError { CurlTransport.shutDownError }

        /// Body bytes one transfer may take in one round of `curl_multi_perform` while others run.
        /// libcurl reads a fast socket for as long as it stays readable, so without a bound eight fast
        /// bodies held one round for 20–40 ms and every other call waited for it; past
        /// the bound a transfer pauses until the next round (see ``CurlExchange``).
        static let roundBudget = 64 * 1024
        /// Counts the loop's rounds, so that an exchange knows when its budget starts again. Loop thread only.
        private(set) var round = 0
        /// Exchanges that paused for the rest of this round, resumed at the start of the next. Loop thread only.
        private var yielded: [CurlExchange] = []
        /// Whether another transfer shares the loop, so that a transfer going over its budget pauses. Loop thread only.
        var isShared: Bool { running.count > 1 }
        /// Easy handles of ended exchanges, reset, for the next ones. Loop thread only.
        private var idleHandles: [UnsafeMutableRawPointer] = []
        /// How many ``idleHandles`` are kept: enough for a burst of calls in flight, few enough that
        /// their buffers (16 KiB of receive buffer each) stay small beside the calls' own memory.
        static let idleHandleLimit = 32
        /// Set when the loop stops: handles are freed from then on, not kept. Loop thread only.
        private var isClosing = false
        /// Whether the loop spins before it sleeps once its transfers end. Loop thread only.
        private var idleSpin: CurlIdleSpin
        /// The files the transport's settings name that were found readable lately. Loop thread only.
        private var readableFiles = CurlReadableFiles()

        /// The loop thread's name, as `top -H`, `perf` and debuggers show it.
        static let threadName = "ER.CurlLoop"

        /// Starts a loop thread, or returns `nil` when libcurl cannot make a multi handle.
        init?(maximumConnectionsPerHost: Int, idleSpin: Duration) {
            guard let multi = libcurl_multi_init() else { return nil }
            self.multi = multi
            self.idleSpin = CurlIdleSpin(budget: idleSpin)
            // The same limit twice: admission keeps libcurl's own pending queue empty, and libcurl's
            // stays as the bound should a transfer be counted differently (a proxy, a redirect).
            admission = CurlAdmissionState(limit: maximumConnectionsPerHost)
            _ = libcurl_multi_setopt_long(multi, CurlMultiOption.maxHostConnections, max(1, maximumConnectionsPerHost))
            // The thread keeps the loop alive until it stops.
            let thread = Thread {
                // Named from inside, within Linux's 15 bytes: a longer name is refused (ERANGE) and the
                // thread shows as a pool thread in `top`, `perf` and gdb.
                libcurl_name_this_thread(Self.threadName)
                libcurl_tighten_timer_slack()
                self.run()
            }
            thread.name = Self.threadName
            thread.start()
        }

        /// Hands `command` to the loop thread; `false` when the loop has stopped.
        @discardableResult
        func post(_ command: Command) -> Bool {
            inbox.withLock { inbox in
                guard inbox.isOpen else { return false }
                inbox.commands.append(command)
                inboxHasCommands.store(true, ordering: .releasing)
                // Only a waiting loop is woken, once: a running one drains the inbox before it waits
                // again. Under the lock: the loop frees the multi only after closing the inbox under it.
                if inbox.isWaiting || inbox.isDozing { inbox.wokenAt = Self.now() }
                if inbox.isWaiting {
                    inbox.isWaiting = false
                    _ = libcurl_multi_wakeup(multi)
                }
                if inbox.isDozing {
                    inbox.isDozing = false
                    dozeBell.lock()
                    dozeBell.signal()
                    dozeBell.unlock()
                }
                return true
            }
        }

        /// Ends every exchange with a `.transport` error, then the thread and the multi handle.
        func stop() { post(.stop) }

        // MARK: Loop thread

        /// Puts `exchange`'s transfer on the multi, or holds it until its host has room; either way
        /// it ends in ``remove(_:)``.
        func add(_ easy: UnsafeMutableRawPointer, for exchange: CurlExchange) {
            switch admission.add(Transfer(easy: easy, exchange: exchange), host: exchange.origin) {
            case .admit: start(easy, for: exchange)
            case .hold: break
            case .refuse: exchange.cancel(shutDownError)
            }
        }

        private func start(_ easy: UnsafeMutableRawPointer, for exchange: CurlExchange) {
            running[easy] = exchange
            if libcurl_multi_add_handle(multi, easy) != 0 {
                running[easy] = nil
                // Its cancel removes it, which gives its place to the next held transfer of its host.
                exchange.cancel(.transport(.resourceUnavailable, "libcurl refused to start the transfer", url: exchange.request.url))
            }
        }

        /// Starts the held transfers admission lets go, in its order.
        private func admit(_ released: [Transfer]) {
            for transfer in released {
                transfer.exchange.restartBackstop()
                start(transfer.easy, for: transfer.exchange)
            }
        }

        /// `exchange` paused for the rest of this round (``roundBudget``); it resumes at the next.
        func yieldRound(_ exchange: CurlExchange) { yielded.append(exchange) }

        func isRunning(_ easy: UnsafeMutableRawPointer) -> Bool { running[easy] != nil }

        /// Whether this process can read the file at `path`, which a setting of the transport names.
        func isReadable(_ path: String) -> Bool {
            readableFiles.isReadable(path, now: Self.now(), probe: CurlReadableFiles.isReadableFile)
        }

        /// An easy handle for a new exchange: an idle one, or a new one (`nil` when libcurl has no memory).
        ///
        /// The loop thread bounds how many small calls a transport carries at once, and a reset
        /// handle spares it `curl_easy_init` and `curl_easy_cleanup` per exchange. Measured (issue 23)
        /// only together with the caller-task deadline and one wake-up per batch: 64 small calls in
        /// flight took 0.77× the wall time and 0.83× the CPU (`Benchmarks/README.md`).
        func handle() -> UnsafeMutableRawPointer? { idleHandles.popLast() ?? libcurl_easy_init() }

        /// Takes back the handle of an ended exchange, off the multi: every option goes back to its
        /// default (`curl_easy_reset`), so nothing of one request reaches the next.
        func recycle(_ easy: UnsafeMutableRawPointer) {
            guard idleHandles.count < Self.idleHandleLimit, !isClosing else {
                libcurl_easy_cleanup(easy)
                return
            }
            libcurl_easy_reset(easy)
            idleHandles.append(easy)
        }

        /// Ends `easy`'s transfer: off the multi, or out of the held ones (it never reached libcurl),
        /// and its place goes to the oldest held transfer of its host.
        func remove(_ easy: UnsafeMutableRawPointer) {
            switch admission.remove(easy) {
            case .dropHeld:
                // Out of admission's queue, the one record of it: it never reached the multi.
                break
            case .none:
                // Never added (its set-up failed), or the loop is closing: off the multi if it is on it.
                takeOff(easy)
            case .removeAndAdmit(let released):
                takeOff(easy)
                admit(released)
            }
        }

        private func takeOff(_ easy: UnsafeMutableRawPointer) {
            guard running.removeValue(forKey: easy) != nil else { return }
            _ = libcurl_multi_remove_handle(multi, easy)
        }

        /// Whether `easy`'s transfer ran over HTTP/2 or later, so that its host multiplexes; `nil`
        /// when it got no response (or libcurl predates 7.50), which says nothing of the host.
        private func multiplexed(_ easy: UnsafeMutableRawPointer) -> Bool? {
            var version = 0
            guard libcurl_easy_getinfo_long(easy, CurlInfo.httpVersion, &version) == 0, version != 0 else { return nil }
            return version == CurlHTTPVersion.http2 || version == CurlHTTPVersion.http3
        }

        private func run() {
            var active: Int32 = 0
            var ready: Int32 = 0
            while true {
                let (commands, wokenAt) = inbox.withLock { inbox in
                    inbox.isWaiting = false
                    inboxHasCommands.store(false, ordering: .relaxed)
                    defer {
                        inbox.commands.removeAll(keepingCapacity: true)
                        inbox.wokenAt = nil
                    }
                    return (inbox.commands, inbox.wokenAt)
                }
                if !commands.isEmpty && idleSpin.isIdle { idleSpin.tookCommands(at: wokenAt ?? Self.now()) }
                for (index, command) in commands.enumerated() {
                    switch command {
                    case .start(let exchange, let continuation): exchange.start(continuation)
                    case .cancel(let exchange, let error): exchange.cancel(error)
                    case .demand(let exchange): exchange.demand()
                    case .stop:
                        close(refusing: commands[(index + 1)...])
                        return
                    }
                }
                round &+= 1
                if !yielded.isEmpty {
                    let resumed = yielded
                    yielded.removeAll(keepingCapacity: true)
                    for exchange in resumed { exchange.resumeRound() }
                }
                _ = libcurl_multi_perform(multi, &active)
                var easy: UnsafeMutableRawPointer?
                var result: Int32 = 0
                var completed = false
                while libcurl_multi_next_done(multi, &easy, &result) == 1 {
                    completed = true
                    guard let easy, let exchange = running[easy] else { continue }
                    // Before the exchange ends: an HTTP/2 host's held transfers start at once, not one by one.
                    admit(admission.completed(easy, multiplexed: multiplexed(easy)))
                    exchange.complete(result)
                }
                if completed && idleSpin.budget > 0 && running.isEmpty && yielded.isEmpty {
                    switch idleSpin.ranOutOfTransfers(at: Self.now()) {
                    case .spin(let deadline): spin(until: deadline)
                    case .doze(let wake, let deadline): doze(until: wake, thenSpinUntil: deadline)
                    case .wait: break
                    }
                }
                // A transfer that yielded may have its last bytes held by libcurl and none on its socket,
                // and a command taken while the loop ran had no wake-up: no waiting for the socket then.
                let wait =
                    yielded.isEmpty
                    && inbox.withLock { inbox in
                        guard inbox.commands.isEmpty else { return false }
                        inbox.isWaiting = true
                        return true
                    }
                _ = libcurl_multi_poll(multi, wait ? 1000 : 0, &ready)
            }
        }

        private func close(refusing unrun: ArraySlice<Command>) {
            isClosing = true
            let left = inbox.withLock { inbox in
                inbox.isOpen = false
                defer { inbox.commands = [] }
                return inbox.commands
            }
            for command in unrun + left {
                if case .start(let exchange, let continuation) = command {
                    exchange.cancel(shutDownError)
                    exchange.start(continuation)
                }
            }
            // Held ones first, and admission closed: ending a running one must not start a held one.
            for transfer in admission.close() { transfer.exchange.cancel(shutDownError) }
            for exchange in Array(running.values) { exchange.cancel(shutDownError) }
            for easy in idleHandles { libcurl_easy_cleanup(easy) }
            idleHandles = []
            _ = libcurl_multi_cleanup(multi)
        }
    }
#endif
