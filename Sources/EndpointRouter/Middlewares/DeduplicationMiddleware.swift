/// Lets concurrent identical GET and HEAD requests share one network exchange: when several views
/// ask for the same resource at once, the server sees one request and every caller gets the answer.
///
/// ```swift
/// enum CatalogAPI: HTTPClient, Equatable {
///     case products, liveScore
///     var host: String { "https://shop.example.com" }
///     var endpoint: String { self == .products ? "products" : "live-score" }
///     var middlewares: [any HTTPMiddleware] { [DeduplicationMiddleware()] }
///     var options: EndpointOptions {
///         var options = EndpointOptions()
///         options.deduplicate = self != .liveScore   // this one must always go to the server
///         return options
///     }
/// }
/// ```
///
/// Requests are identical when method, URL and headers are (header names in any casing) and have no
/// body. That includes the credentials — `Authorization`, `Proxy-Authorization`, `Cookie`, the
/// header an ``AuthorizationMiddleware`` put its credential in, the endpoint's
/// ``RedirectPolicy/sensitiveHeaders`` — so two users never share an answer; they are compared by a
/// keyed hash (HMAC-SHA256 under a random key each ``InFlightRequests`` holds), not kept as values.
/// Each caller gets the same response, produced once by the middlewares after this one (they
/// run for the caller who sends the exchange only). A waiting caller that is cancelled, or whose
/// deadline passes, gets `.cancelled` or `.timedOut` at once while the others keep waiting. If the
/// caller who sends the exchange leaves, its call ends and takes the exchange with it, and a caller
/// still waiting sends it again (see ``InFlightRequests``); once every caller has gone, nothing is
/// sent any more. A request joins an exchange only while it is in flight: nothing is kept once it
/// ends (that is ``CachingMiddleware``'s job).
///
/// The state lives in an ``InFlightRequests`` object, by default the process-wide
/// ``InFlightRequests/shared``, not in the middleware: a computed `middlewares` that creates a fresh
/// `DeduplicationMiddleware()` for every call shares exchanges all the same. Pass your own
/// ``InFlightRequests`` to keep a service's exchanges apart from the rest.
///
/// Placement: after the middlewares that change the request (``AuthorizationMiddleware``), so that
/// requests are compared as they will be sent — placed before it, every user's request would look
/// the same and one user's answer would reach the others — and after ``CachingMiddleware``, so that cache hits never wait
/// for an exchange.
public struct DeduplicationMiddleware: HTTPMiddleware {
    /// Where the exchanges in flight are kept.
    public let inFlight: InFlightRequests

    /// Creates a middleware sharing the exchanges in `inFlight`.
    public init(sharing inFlight: InFlightRequests = .shared) {
        self.inFlight = inFlight
    }

    /// Joins an identical exchange in flight, or starts one others may join; other methods, and
    /// endpoints whose ``EndpointOptions/deduplicate`` is `false`, pass straight through.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        guard context.options.deduplicate, !context.isStreaming, request.method == .get || request.method == .head, request.body == nil
        else {
            return try await next(request, context)
        }
        switch await inFlight.join(request, credentialHeaders: context.options.credentialHeaders) {
        case .shared(let result):
            return try result.get()
        case .sendYourself:
            return try await next(request, context)
        case .send(let flight):
            let result = await Deadline.capture { () throws(HTTPClientError) in try await next(request, context) }
            flight.finish(result, senderLeft: Task.isCancelled)
            return try result.get()
        }
    }
}

private enum Deduplicate: EndpointOptionKey {
    static let defaultValue = true
}

extension EndpointOptions {
    /// Whether ``DeduplicationMiddleware`` may let this endpoint's GET and HEAD requests share an
    /// exchange with identical ones in flight. `true` by default: adding the middleware is the
    /// opt-in, and this is the way out for an endpoint whose every call must reach the server
    /// (a poll whose answer changes from one moment to the next, a request with side effects).
    public var deduplicate: Bool {
        get { self[Deduplicate.self] }
        set { self[Deduplicate.self] = newValue }
    }
}
