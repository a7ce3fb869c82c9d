import EndpointRouter
import Foundation

/// The lines a ``LoggingMiddleware`` writes during one scenario, kept to be printed in its block.
/// The request line is the logger's own (already redacted); the response line is made shorter from
/// the metadata every line carries.
final class WireLines: @unchecked Sendable {
    // A lock rather than an actor: a `LogSink` is called synchronously and must not wait.
    private let lock = NSLock()
    private var lines: [String] = []

    var sink: LogSink {
        LogSink { [self] _, message, metadata in
            let line: String
            if message.hasPrefix("→") {
                line = message
            } else if let elements = metadata["elements"] {
                // The end of a stream: its line comes once the body has ended.
                line = "⇠ stream ended: \(elements) elements, \(metadata["bytes"] ?? "?") bytes in \(metadata["duration_ms"] ?? "?") ms"
            } else if message.hasSuffix("streaming"), let status = metadata["status"] {
                line = "← \(status), streaming (head in \(metadata["duration_ms"] ?? "?") ms)"
            } else if let status = metadata["status"] {
                line = "← \(status), \(metadata["bytes"] ?? "?") bytes in \(metadata["duration_ms"] ?? "?") ms"
            } else {
                line = "← failed: \(metadata["error"] ?? message)"
            }
            lock.withLock { lines.append(line) }
        }
    }

    var all: [String] { lock.withLock { lines } }
}
