/// A step between building a request and sending it: it may change the request, call `next` zero
/// or more times, and change the response or error.
///
/// Middlewares run in the order an endpoint lists them: the first sees the request first and the
/// response last. After the last one come the request checks, the redirect follower and the
/// transport; a middleware that must see each request sent, redirect hops included, sets
/// ``CallContext/exchangeMiddleware``. The call's deadline is above them all: a middleware that waits or retries past it is
/// cut off with `.timedOut`.
///
/// Wait with `await`, never by blocking the thread (a lock held across I/O, a semaphore, a
/// synchronous network or disk read): a call starts on its caller's thread, and the deadline and
/// cancellation reach the caller at any `await`, even one that ignores cancellation, but not
/// through code that holds the thread. That is outside the contract, as in Swift concurrency and
/// SwiftNIO generally.
///
/// ```swift
/// struct BearerToken: HTTPMiddleware {
///     let token: String
///     func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
///         var request = request
///         request.headers["Authorization"] = "Bearer \(token)"
///         return try await next(request, context)
///     }
/// }
/// ```
public protocol HTTPMiddleware: Sendable {
    /// The rest of the chain, ending in the transport. Each call is one more attempt: the context
    /// it passes on carries the next ``CallContext/attempt`` number.
    typealias Next = @Sendable (OutgoingRequest, CallContext) async throws(HTTPClientError) -> IncomingResponse

    /// Handles one request, passing it on with `next`.
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse
}
