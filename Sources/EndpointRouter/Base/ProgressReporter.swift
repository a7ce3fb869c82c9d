import Dispatch

/// Hands a call's transfer progress to the caller's closure: off the thread that reported it, one
/// delivery at a time, coalesced to the newest value, never backwards, and over when the call returns.
///
/// **Off the reporting thread.** Transports report from their I/O path: `CurlTransport`'s one loop
/// thread that every call on it shares, URLSession's delegate queue, a NIO event loop. A closure
/// that blocks there (a slow UI update, a log write) stalls every other call on the transport; one
/// that slept 0.5 s on its first reports made an unrelated GET with a 1 s timeout time out. So
/// ``report(_:)`` only records the value under a lock, and a work item of the reporter's own, on a
/// Dispatch global queue, calls the closure. Not a Swift task: the cooperative pool has one thread
/// per core and resumes every call's awaits, so a closure blocking there would stall the other
/// calls as surely as on the loop thread, while Dispatch can add a worker when one blocks.
///
/// **Coalesced.** One work item per report would queue without bound behind a closure slower than the
/// reports. Instead at most one delivery runs per call: reports that come while the closure runs
/// replace one another, and when it returns the same work item delivers the newest, or ends. The closure
/// never runs twice at once and sees values in increasing order, skipping the ones it was too slow
/// for; a fast closure sees nearly every report.
///
/// **Over when the call returns.** The call awaits ``finish(deliveringLast:)`` before returning, so
/// once `download`/`upload` has returned the closure is not running and never runs again — a
/// progress bar hidden on completion cannot reappear — and a completed transfer's last report (the
/// total) has been delivered, so the last value a caller saw is the 100 % it expects. The cost: the
/// call returns only once the closure running at that moment has returned, so it should be quick.
/// A failed or cancelled call drops the values not yet delivered instead of waiting for them.
///
/// Never backwards: a retried attempt or a redirect hop starts counting from zero again, and the
/// caller must not see the bar jump back.
package final class ProgressReporter: Sendable {
    private struct State {
        /// The newest value accepted, against which the next is judged forward or not.
        var newest: TransferProgress?
        /// Accepted but not yet delivered. Only ever set while `isDelivering`.
        var pending: TransferProgress?
        /// Whether a delivery is under way: the next report then only replaces `pending`.
        var isDelivering = false
        /// Set by ``finish(deliveringLast:)``: later reports (a transport winding down after a
        /// deadline) are dropped.
        var isFinished = false
        /// ``finish(deliveringLast:)`` calls waiting for the delivery to end.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let handler: @Sendable (TransferProgress) -> Void
    private let state = Locked(State())

    /// A reporter for one call's `handler`: one per call, since coalescing and ``finish(deliveringLast:)``
    /// are per call.
    package init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
    }

    /// Records `progress` when it moves forward (or first learns the total), for the delivery
    /// to hand over; starts a delivery if none is under way. Cheap and non-blocking: transports call
    /// it from their I/O threads.
    package func report(_ progress: TransferProgress) {
        let startsDelivery = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            if let previous = state.newest,
                progress.completedBytes < previous.completedBytes
                    || (progress.completedBytes == previous.completedBytes && progress.expectedBytes == previous.expectedBytes)
            {
                return false
            }
            state.newest = progress
            state.pending = progress
            guard !state.isDelivering else { return false }
            state.isDelivering = true
            return true
        }
        // Never inline, even for a transport that reports from the caller's task (a stub): the
        // closure's pace must not set the transport's.
        if startsDelivery { DispatchQueue.global().async { self.deliver() } }
    }

    /// Ends reporting: later reports are dropped, and this returns once the closure has returned
    /// for the last time. With `deliveringLast` (the transfer completed) the newest value not yet
    /// delivered is delivered first; without, it is dropped, so that a failed or cancelled call
    /// waits only for a closure already running.
    package func finish(deliveringLast: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = state.withLock { state -> Bool in
                state.isFinished = true
                if !deliveringLast { state.pending = nil }
                // `pending` is only ever set while a delivery is under way, which will take it.
                guard state.isDelivering else { return true }
                state.waiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    /// One delivery: hands over the newest pending value until none is left, then wakes
    /// whoever waits in ``finish(deliveringLast:)``.
    private func deliver() {
        while true {
            let (next, waiters) = state.withLock { state -> (TransferProgress?, [CheckedContinuation<Void, Never>]) in
                if let pending = state.pending {
                    state.pending = nil
                    return (pending, [])
                }
                state.isDelivering = false
                defer { state.waiters = [] }
                return (nil, state.waiters)
            }
            guard let next else {
                for waiter in waiters { waiter.resume() }
                return
            }
            handler(next)
        }
    }
}
