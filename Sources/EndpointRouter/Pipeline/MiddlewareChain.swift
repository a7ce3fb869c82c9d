/// Middlewares folded around the library's last steps.
enum MiddlewareChain {
    /// Runs `middlewares` in order on `request`, then `terminal`.
    static func run(
        _ middlewares: ArraySlice<any HTTPMiddleware>, then terminal: @escaping HTTPMiddleware.Next,
        _ request: HTTPRequest, _ context: RequestContext
    ) async throws(HTTPClientError) -> HTTPResponse {
        guard let first = middlewares.first else { return try await terminal(request, context) }
        return try await first.intercept(request, context: context, next: next(after: middlewares.dropFirst(), then: terminal))
    }

    /// The `next` one middleware is handed: it numbers its calls, so the second call passes the
    /// request on as attempt `n + 1`.
    ///
    /// The count belongs to this `next` (a middleware called again gets a fresh one), and it shares
    /// one allocation with what the closure needs: the closure captures only that storage, so a
    /// middleware costs the call one allocation here, not a closure context plus a lock.
    private static func next(after rest: ArraySlice<any HTTPMiddleware>, then terminal: @escaping HTTPMiddleware.Next) -> HTTPMiddleware.Next {
        let step = Locked(Step(rest: rest, terminal: terminal))
        return { request, context throws(HTTPClientError) in
            let (rest, terminal, call) = step.withLock { step in
                step.calls += 1
                return (step.rest, step.terminal, step.calls)
            }
            var context = context
            context.attempt += call - 1
            return try await run(rest, then: terminal, request, context)
        }
    }

    private struct Step {
        let rest: ArraySlice<any HTTPMiddleware>
        let terminal: HTTPMiddleware.Next
        var calls = 0
    }
}
