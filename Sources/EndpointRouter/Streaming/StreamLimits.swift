import Foundation

/// The limits of a streaming call (``HTTPClient/events(limits:reconnect:headers:middlewares:)``,
/// ``HTTPClient/lines(limits:headers:middlewares:)``, …), which replace the whole-body size limit and
/// total deadline of `request(type:)`: a stream may never end, so what is bounded is one element,
/// the bytes read ahead of the consumer, and the silence between bytes.
///
/// Limits are given per call; an API that wants the same ones everywhere keeps them in a constant:
///
/// ```swift
/// extension ChatAPI {
///     static let streamLimits = StreamLimits(maxElementSize: 4 * 1024 * 1024, idleTimeout: 120)
/// }
/// for try await event in ChatAPI.completions(prompt).events(limits: ChatAPI.streamLimits) { print(event.data) }
/// ```
///
/// The endpoint's ``HTTPClient/timeout`` still bounds getting the response head, middlewares and
/// retries included.
///
/// A value that cannot be a limit — a size of zero or less, a timeout that is not a positive finite
/// number of seconds (NaN, infinity, zero, negative) — makes the stream throw `.encodingFailed`
/// naming the limit at its first element, before anything is sent (`nil` is the way to say "no
/// limit"). Timeouts above about 31 years are capped there, as the endpoint's `timeout` is.
public struct StreamLimits: Sendable, Hashable {
    /// Bytes a transport that can wait reads ahead of the consumer at most: 1 MiB unless set. A
    /// transport that cannot pause its reading (URLSession) fails the stream with `.responseTooLarge`
    /// when the consumer falls this far behind; on Linux corelibs may go on reading, and memory
    /// growing, until the connection closes (see the Streaming article).
    public var bufferSize: Int
    /// The largest element in bytes — one line, one JSON line, one event — 1 MiB unless set; a
    /// larger one ends the stream with `.responseTooLarge` and cancels the exchange (a transport that
    /// reads on demand closes the connection; URLSession may already have read a short body whole).
    /// `nil` for no limit. (`bytes()` hands pieces as they arrive, so it has no element to limit.)
    public var maxElementSize: Int?
    /// Seconds without a byte from the server after which the stream ends with `.timedOut`: 60
    /// unless set, `nil` for never. Time the transport spends waiting for a slow consumer does
    /// not count. Measured on the call's clock too when the transport is simulated (a test's
    /// `VirtualClock`), and in real time in any case.
    public var idleTimeout: TimeInterval?
    /// Seconds the whole stream may last, head included, after which it ends with `.timedOut`;
    /// `nil` (the default) for no limit. On the call's clock as ``idleTimeout`` is.
    public var totalTimeout: TimeInterval?

    /// Creates limits; each left out keeps its default.
    public init(
        bufferSize: Int = 1_048_576, maxElementSize: Int? = 1_048_576, idleTimeout: TimeInterval? = 60, totalTimeout: TimeInterval? = nil
    ) {
        self.bufferSize = bufferSize
        self.maxElementSize = maxElementSize
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
    }

    /// Why these limits cannot be used, or `nil`; see the type's description.
    var problem: HTTPClientError? {
        if bufferSize <= 0 {
            return .encodingFailed("StreamLimits.bufferSize \(bufferSize) is not a positive number of bytes")
        }
        if let maxElementSize, maxElementSize <= 0 {
            return .encodingFailed(
                "StreamLimits.maxElementSize \(maxElementSize) is not a positive number of bytes; use nil for no element limit")
        }
        return Deadline.problem(idleTimeout, name: "StreamLimits.idleTimeout")
            ?? Deadline.problem(totalTimeout, name: "StreamLimits.totalTimeout")
    }
}
