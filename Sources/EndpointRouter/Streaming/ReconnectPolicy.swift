import Foundation

/// Whether ``HTTPClient/events(limits:reconnect:headers:middlewares:)`` reconnects when the
/// connection is lost, as a browser's `EventSource` does.
///
/// ```swift
/// for try await event in FeedAPI.live.events(reconnect: .automatic(maxAttempts: 5)) { … }
/// ```
///
/// A reconnection waits the server's `retry` (or ``initialDelay`` when it sent none), doubled after
/// each failed attempt and never more than ``maximumDelay``, then sends the request again with
/// `Last-Event-ID`, and the same sequence goes on. It happens when the body ends, when the
/// connection is lost or goes idle, and when the connection cannot be made; it does not when the
/// server answers a non-2xx status (the sequence throws `.unacceptableStatusCode`) or `204 No
/// Content` (the sequence ends: the spec's way for a server to say "stop"), nor for an event over
/// the size limit, a total timeout or a cancellation.
public struct ReconnectPolicy: Sendable, Hashable {
    /// Reconnections in a row, without a connection that got a 2xx head between them, before the
    /// sequence throws the last error; 0 never reconnects.
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

    /// The wait before reconnection number `attempt` (1 for the first after a good connection).
    func delay(attempt: Int, requested: Duration?) -> Duration {
        var delay = requested ?? initialDelay
        for _ in 1..<max(1, min(attempt, 16)) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay)
    }
}
