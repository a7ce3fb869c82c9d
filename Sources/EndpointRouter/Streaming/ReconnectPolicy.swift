/// Whether ``HTTPClient/events(limits:reconnect:headers:middlewares:)`` reconnects when the
/// connection is lost, as a browser's `EventSource` does.
///
/// ```swift
/// for try await event in FeedAPI.live.events(reconnect: .automatic(maxAttempts: 5)) { print(event.data) }
/// ```
///
/// A reconnection waits the server's `retry` (or ``initialDelay`` when it sent none), doubled after
/// each attempt that brought no event and never more than ``maximumDelay``, then sends the request
/// again with `Last-Event-ID`, and the same sequence goes on.
///
/// Exactly when a stream reconnects:
/// - only if its request may be sent again on its own: an idempotent method (a GET, as
///   `EventSource` sends; see ``RequestMethod/isIdempotent``), or an endpoint that sets
///   ``EndpointOptions/retryable`` to `true`, the rule ``RetryMiddleware`` follows. A POST stream
///   (a chat completion) is never sent twice unless its endpoint says so: its body's end, or a lost
///   connection, ends the sequence (with the error, if there was one);
/// - when the body ends, when the connection is lost, and when the connection cannot be made;
/// - not when the server answers a non-2xx status (the sequence throws `.unacceptableStatusCode`) or
///   `204 No Content` (the sequence ends: the spec's way for a server to say "stop"), nor for an
///   event over the size limit, a total timeout or a cancellation;
/// - at most ``maxAttempts`` times in a row without an event between them: a server that answers
///   2xx and ends at once, again and again, gets waits that double and then the end of the
///   sequence, not a loop. An event resets the count and the wait.
public struct ReconnectPolicy: Sendable, Hashable {
    /// Reconnections in a row, without an event between them, before the sequence ends (throwing the
    /// last error, if the last connection failed); 0 never reconnects.
    public var maxAttempts: Int
    /// The wait before a reconnection when the server sent no `retry`.
    public var initialDelay: Duration
    /// The longest wait, whatever the server's `retry` says.
    public var maximumDelay: Duration

    /// Never reconnect: a lost connection ends the sequence with its error, a body's end without one.
    public static let never = ReconnectPolicy(maxAttempts: 0, initialDelay: .zero, maximumDelay: .zero)

    /// Reconnect up to `maxAttempts` times in a row, waiting the server's `retry` (3 s if none),
    /// at most `maximumDelay`.
    public static func automatic(
        maxAttempts: Int = 5, initialDelay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60)
    ) -> ReconnectPolicy {
        ReconnectPolicy(maxAttempts: maxAttempts, initialDelay: initialDelay, maximumDelay: maximumDelay)
    }

    /// Creates a policy; see ``automatic(maxAttempts:initialDelay:maximumDelay:)``.
    public init(maxAttempts: Int, initialDelay: Duration, maximumDelay: Duration) {
        self.maxAttempts = max(0, maxAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.maximumDelay = max(.zero, maximumDelay)
    }

    /// The longest wait honoured whatever the policy or the server asks (about 31 years, as for a
    /// deadline), so that doubling and the clock's arithmetic stay finite.
    static let longestDelay = Duration.seconds(1_000_000_000)

    /// The wait before reconnection number `attempt` (1 for the first after an event).
    func delay(attempt: Int, requested: Duration?) -> Duration {
        let cap = min(maximumDelay, Self.longestDelay)
        var delay = min(max(requested ?? initialDelay, .zero), cap)
        for _ in 1..<max(1, min(attempt, 16)) where delay < cap { delay *= 2 }
        return min(delay, cap)
    }
}
