#if os(Linux)
    internal import CLibcurl
    import Foundation

    /// A thread of a ``CurlTransport`` that calls libcurl: it owns a multi handle, waits in
    /// `curl_multi_poll`, and runs the commands other threads hand it, which wake it with
    /// `curl_multi_wakeup`. Nothing else calls libcurl on its multi or its exchanges' handles, and no
    /// caller's thread ever blocks on it. A transport has several (``CurlLoopGroup``), each with its
    /// own multi handle and connections; an exchange stays on the loop it started on.
    final class CurlLoop: @unchecked Sendable {
        /// What other threads ask of the loop.
        enum Command {
            case start(CurlExchange, CurlExchange.Continuation)
            case cancel(CurlExchange, HTTPClientError)
            case demand(CurlExchange)
            case stop
        }

        private struct Inbox {
            var commands: [Command] = []
            /// False once the loop stopped: the multi handle is gone and nothing more is taken.
            var isOpen = true
        }

        private let inbox = Locked(Inbox())
        private let multi: UnsafeMutableRawPointer
        /// The exchanges on the multi, by easy handle. Loop thread only.
        private var running: [UnsafeMutableRawPointer: CurlExchange] = [:]
        private let shutDownError: HTTPClientError = .transport(
            .resourceUnavailable, "this CurlTransport was shut down; create a new one")

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

        /// The loop thread's name, as `top -H`, `perf` and debuggers show it.
        static let threadName = "ER.CurlLoop"

        /// Starts a loop thread, or returns `nil` when libcurl cannot make a multi handle.
        init?(maximumConnectionsPerHost: Int) {
            guard let multi = libcurl_multi_init() else { return nil }
            self.multi = multi
            _ = libcurl_multi_setopt_long(multi, CurlMultiOption.maxHostConnections, max(1, maximumConnectionsPerHost))
            // The thread keeps the loop alive until it stops.
            let thread = Thread {
                // Named from inside, within Linux's 15 bytes: a longer name is refused (ERANGE) and the
                // thread shows as a pool thread in `top`, `perf` and gdb.
                libcurl_name_this_thread(Self.threadName)
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
                // Only the first command of a batch wakes the loop: the others find it woken and not
                // yet drained, and it takes them all at once. Under the lock: the loop frees the multi
                // only after closing the inbox under it.
                if inbox.commands.count == 1 { _ = libcurl_multi_wakeup(multi) }
                return true
            }
        }

        /// Ends every exchange with a `.transport` error, then the thread and the multi handle.
        func stop() { post(.stop) }

        // MARK: Loop thread

        func add(_ easy: UnsafeMutableRawPointer, for exchange: CurlExchange) {
            running[easy] = exchange
            if libcurl_multi_add_handle(multi, easy) != 0 {
                running[easy] = nil
                exchange.cancel(.transport(.resourceUnavailable, "libcurl refused to start the transfer", url: exchange.request.url))
            }
        }

        /// `exchange` paused for the rest of this round (``roundBudget``); it resumes at the next.
        func yieldRound(_ exchange: CurlExchange) { yielded.append(exchange) }

        func isRunning(_ easy: UnsafeMutableRawPointer) -> Bool { running[easy] != nil }

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

        func remove(_ easy: UnsafeMutableRawPointer) {
            guard running.removeValue(forKey: easy) != nil else { return }
            _ = libcurl_multi_remove_handle(multi, easy)
        }

        private func run() {
            var active: Int32 = 0
            var ready: Int32 = 0
            while true {
                let commands = inbox.withLock { inbox in
                    defer { inbox.commands.removeAll(keepingCapacity: true) }
                    return inbox.commands
                }
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
                while libcurl_multi_next_done(multi, &easy, &result) == 1 {
                    if let easy, let exchange = running[easy] { exchange.complete(result) }
                }
                // A transfer that yielded may have its last bytes held by libcurl and none on its socket:
                // no waiting for the socket then.
                _ = libcurl_multi_poll(multi, yielded.isEmpty ? 1000 : 0, &ready)
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
            for exchange in Array(running.values) { exchange.cancel(shutDownError) }
            for easy in idleHandles { libcurl_easy_cleanup(easy) }
            idleHandles = []
            _ = libcurl_multi_cleanup(multi)
        }
    }
#endif
