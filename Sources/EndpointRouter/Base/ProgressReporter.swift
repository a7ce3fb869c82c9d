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
/// **Over when the call returns.** The call awaits ``finish(deliveringLast:by:)`` before returning,
/// so once `download`/`upload` has returned no delivery begins again — a progress bar hidden on
/// completion cannot reappear — and a completed transfer's last report (the total) has been
/// delivered, so the last value a caller saw is the 100 % it expects. The call waits for the
/// closure running at that moment, but never past its deadline nor its caller's cancellation: the
/// library promises a total deadline, and a closure that sleeps 10 s (or never returns) would
/// otherwise hold the call as long. Past the deadline the call returns its result (the transfer
/// itself completed in time; a slow closure does not turn it into a failure) without the last
/// value delivered, and that value is dropped: the closure already running may still be running
/// when the call returns (it cannot be stopped), but it is not called again. A failed or cancelled
/// call drops the values not yet delivered instead of waiting for them.
///
/// Never backwards: a retried attempt or a redirect hop starts counting from zero again, and the
/// caller must not see the bar jump back.
package final class ProgressReporter: Sendable {
    private struct Guarded {
        var machine = ProgressDeliveryState<CheckedContinuation<Void, Never>>()
        /// Identifies each ``finish(deliveringLast:by:)`` call's wait.
        var lastWaiterID = 0
    }

    private let handler: @Sendable (TransferProgress) -> Void
    private let state = Locked(Guarded())

    /// A reporter for one call's `handler`: one per call, since coalescing and
    /// ``finish(deliveringLast:by:)`` are per call.
    package init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
    }

    /// Records `progress` when it moves forward (or first learns the total), for the delivery
    /// to hand over; starts a delivery if none is under way. Cheap and non-blocking: transports call
    /// it from their I/O threads.
    package func report(_ progress: TransferProgress) {
        let startsDelivery = state.withLock { $0.machine.reported(progress) }
        // Never inline, even for a transport that reports from the caller's task (a stub): the
        // closure's pace must not set the transport's.
        if startsDelivery { DispatchQueue.global().async { self.deliver() } }
    }

    /// Ends reporting: later reports are dropped, and this returns once the closure has returned
    /// for the last time, or at `deadline`, or when the calling task is cancelled, whichever comes
    /// first; from then on no delivery begins. With `deliveringLast` (the transfer completed) the
    /// newest value not yet delivered is delivered first; without, it is dropped, so that a failed
    /// or cancelled call waits only for a closure already running.
    package func finish(deliveringLast: Bool, by deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state -> Int in
            state.lastWaiterID += 1
            return state.lastWaiterID
        }
        var timer: DeadlineTimer.Token?
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if let now = state.withLock({ $0.machine.finishRequested(deliveringLast: deliveringLast, id: id, continuation) }) {
                    now.resume()
                    return
                }
                // The shared process-wide timer, as for the call's own deadline (see `Deadline`).
                timer = DeadlineTimer.shared.schedule(at: deadline) { self.endWait(id) }
                // A cancellation that came before the waiter was registered found nothing to end.
                if Task.isCancelled { endWait(id) }
            }
        } onCancel: {
            endWait(id)
        }
        if let timer { DeadlineTimer.shared.cancel(timer) }
    }

    /// The wait `id` is over early (deadline, cancellation): resumes it if it still waits.
    private func endWait(_ id: Int) {
        state.withLock { $0.machine.waitEnded(id) }?.resume()
    }

    /// One delivery: hands over the newest pending value until none is left, then wakes
    /// whoever waits in ``finish(deliveringLast:by:)``.
    private func deliver() {
        while true {
            switch state.withLock({ $0.machine.nextStep() }) {
            case .deliver(let next):
                handler(next)
            case .end(let waiters):
                for waiter in waiters { waiter.resume() }
                return
            }
        }
    }
}
