import Foundation

/// The life of one accepted connection as the server saw it, so tests can assert that a client closed (or
/// kept) a connection, and how promptly, e.g. after cancelling a download.
public struct ConnectionRecord: Sendable {
    /// Why the server considers a connection over.
    public enum EndReason: Sendable, Equatable {
        /// A read saw end of stream or an error, or a wait saw the peer hang up: the client closed it.
        case peerClosed
        /// A write failed (e.g. `EPIPE`, `ECONNRESET`), or stalled while the peer had hung up: the client
        /// went away while the server was sending.
        case sendFailed
        /// The server closed it on purpose: the script or protocol asked for it, or the request was rejected.
        case closedByServer
        /// `TestServer.stop()` tore it down.
        case serverStopped
    }

    /// 1-based accept order; the same number as ``RecordedRequest/connectionIndex``.
    public let index: Int
    /// When `accept` returned the connection.
    public let accepted: ContinuousClock.Instant
    /// When the server noticed the end; `nil` while the connection is open.
    public internal(set) var ended: ContinuousClock.Instant?
    /// Why it ended; `nil` while the connection is open.
    public internal(set) var endReason: EndReason?
    /// Response body bytes sent successfully on this connection (payload only, without heads or chunk framing),
    /// to tell how far a client got before it abandoned a transfer.
    public internal(set) var bodyBytesSent: Int64

    /// Whether the server still considers the connection open.
    public var isOpen: Bool {
        ended == nil
    }

    /// How long the connection lasted, once it has ended.
    public var lifetime: Duration? {
        ended.map { accepted.duration(to: $0) }
    }

    init(index: Int, accepted: ContinuousClock.Instant) {
        self.index = index
        self.accepted = accepted
        ended = nil
        endReason = nil
        bodyBytesSent = 0
    }
}
