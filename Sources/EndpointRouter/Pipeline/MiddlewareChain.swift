/// Middlewares folded around the library's last steps.
enum MiddlewareChain {
    /// Runs `middlewares` in order on `request`, then `terminal`.
    static func run(
        _ middlewares: ArraySlice<any HTTPMiddleware>, then terminal: @escaping HTTPMiddleware.Next,
        _ request: OutgoingRequest, _ context: CallContext
    ) async throws(HTTPClientError) -> IncomingResponse {
        guard let first = middlewares.first else { return try await terminal(request, context) }
        return try await first.intercept(request, context: context, next: next(after: middlewares.dropFirst(), then: terminal))
    }

    /// The `next` one middleware is handed: it numbers its calls, so the second call passes the
    /// request on as attempt `n + 1`. The count belongs to this `next` (a middleware called again
    /// gets a fresh one).
    private static func next(
        after rest: ArraySlice<any HTTPMiddleware>, then terminal: @escaping HTTPMiddleware.Next
    ) -> HTTPMiddleware.Next {
        let step = Step(rest: rest, terminal: terminal)
        return { request, context throws(HTTPClientError) in
            var context = context
            context.attempt += step.countCall() - 1
            // Calls the next middleware directly rather than through `run`: one async frame less per
            // level, so a deep chain stays longer within the task's first allocation slab.
            guard let first = step.rest.first else { return try await step.terminal(request, context) }
            return try await first.intercept(request, context: context, next: next(after: step.rest.dropFirst(), then: step.terminal))
        }
    }

    /// What one `next` runs, and how often it was called.
    ///
    /// The count is guarded by one lock for every step in the process rather than a lock per step:
    /// a lock per step costs one allocation per middleware per call, and the lock is held for one
    /// increment, so sharing it costs nothing measurable even with many calls in flight.
    /// Measured (issue 27), four no-op middlewares on an instant transport under valgrind: a `Locked`
    /// count per step makes a call 51.0 allocations instead of 47.0, and 85,955 instructions
    /// instead of 82,609.
    private final class Step: @unchecked Sendable {
        // Safe: `calls` is only touched under `Step.countLock`; the rest never changes.
        let rest: ArraySlice<any HTTPMiddleware>
        let terminal: HTTPMiddleware.Next
        private var calls = 0

        private static let countLock = Locked(())

        init(rest: ArraySlice<any HTTPMiddleware>, terminal: @escaping HTTPMiddleware.Next) {
            self.rest = rest
            self.terminal = terminal
        }

        /// Which call of this `next` this is, from 1.
        func countCall() -> Int {
            Self.countLock.withLock {
                calls += 1
                return calls
            }
        }
    }
}
