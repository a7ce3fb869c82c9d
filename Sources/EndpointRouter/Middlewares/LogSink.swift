import Foundation

/// Where ``LoggingMiddleware`` writes its lines: standard error by default, or any closure shaped
/// like `swift-log`'s `Logger.log(level:_:metadata:)`, so an app bridges to its own logger without
/// this package depending on one.
///
/// <!-- snippet: skip reason="needs apple/swift-log, which the library does not depend on" -->
/// ```swift
/// import Logging
/// let logger = Logger(label: "api")
/// let sink = LogSink { level, message, metadata in
///     logger.log(level: Logger.Level(rawValue: level.rawValue) ?? .info, "\(message)",
///                metadata: metadata.mapValues { .string($0) })
/// }
/// LoggingMiddleware(sink: sink)
/// ```
///
/// Every message and metadata value a sink receives is already redacted.
public struct LogSink: Sendable {
    /// Receives one message: its level, the text, and the same facts as key–value metadata
    /// (`endpoint`, `method`, `url`, `attempt`, and for responses `status`, `duration_ms`, `bytes`).
    public let write: @Sendable (LogLevel, String, [String: String]) -> Void

    /// A sink calling `write` for every message, on the caller's task: keep it quick.
    public init(_ write: @escaping @Sendable (LogLevel, String, [String: String]) -> Void) {
        self.write = write
    }

    /// Writes each message as one line to standard error, on a queue of its own, so the call being
    /// logged never waits for the terminal. Messages beyond 10 000 not yet written are dropped
    /// (and counted in the next line written) rather than piling up in memory.
    public static let standardError = LogSink(StandardErrorWriter.shared.write)
}

/// The background writer behind ``LogSink/standardError``.
private final class StandardErrorWriter: Sendable {
    static let shared = StandardErrorWriter()
    private static let maximumPending = 10_000

    private struct State {
        var pending = 0
        var dropped = 0
    }

    private let queue = DispatchQueue(label: "EndpointRouter.LogSink.standardError")
    private let state = Locked(State())

    func write(_ level: LogLevel, _ message: String, _ metadata: [String: String]) {
        let dropped = state.withLock { state -> Int? in
            guard state.pending < Self.maximumPending else {
                state.dropped += 1
                return nil
            }
            state.pending += 1
            defer { state.dropped = 0 }
            return state.dropped
        }
        guard let dropped else { return }
        let line = (dropped > 0 ? "[\(dropped) log lines dropped]\n" : "") + "\(level.rawValue): \(message)\n"
        queue.async {
            FileHandle.standardError.write(Data(line.utf8))
            self.state.withLock { $0.pending -= 1 }
        }
    }
}
