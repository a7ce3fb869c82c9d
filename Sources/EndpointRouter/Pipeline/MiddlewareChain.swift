/// Middlewares folded around the library's last steps into one `next`.
enum MiddlewareChain {
    /// The `next` that runs `middlewares` in order and then `terminal`.
    static func next(_ middlewares: ArraySlice<any HTTPMiddleware>, then terminal: @escaping HTTPMiddleware.Next) -> HTTPMiddleware.Next {
        guard let first = middlewares.first else { return terminal }
        let rest = next(middlewares.dropFirst(), then: terminal)
        return { request, context throws(HTTPClientError) in
            try await first.intercept(request, context: context, next: counting(rest))
        }
    }

    /// `next` that numbers its calls: the second call passes the request on as attempt `n + 1`.
    private static func counting(_ next: @escaping HTTPMiddleware.Next) -> HTTPMiddleware.Next {
        let calls = Locked(0)
        return { request, context throws(HTTPClientError) in
            let call = calls.withLock { calls -> Int in
                calls += 1
                return calls
            }
            var context = context
            context.attempt += call - 1
            return try await next(request, context)
        }
    }
}
