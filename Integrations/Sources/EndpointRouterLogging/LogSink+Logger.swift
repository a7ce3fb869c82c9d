import EndpointRouter
import Logging

extension LogSink {
    /// A sink writing every line of a ``LoggingMiddleware`` to a swift-log `Logger`, at the same
    /// level, with the line's facts as structured metadata (`endpoint`, `method`, `url`, `attempt`,
    /// and for responses `status`, `duration_ms`, `bytes`; `error` for a failure; `elements` when a
    /// stream ends), each prefixed with `metadataPrefix`.
    ///
    /// Redaction is the middleware's, unchanged: the sink receives messages and values already
    /// redacted, and adds nothing of the request. The logger's own metadata and metadata provider
    /// (a request ID of the server handling the current request) apply as usual.
    ///
    /// ```swift
    /// import EndpointRouter
    /// import EndpointRouterLogging
    /// import Logging
    ///
    /// let logger = Logger(label: "api.todos")
    /// let logging = LoggingMiddleware(redaction: Redaction(queryKeys: ["api_key"]), sink: .logger(logger))
    /// ```
    ///
    /// - Parameters:
    ///   - logger: where the lines go; its level filters them as for any other message.
    ///   - metadataPrefix: put before every metadata key, such as `"http."`; empty by default.
    public static func logger(_ logger: Logger, metadataPrefix: String = "") -> LogSink {
        LogSink { level, message, metadata in
            var structured = Logger.Metadata(minimumCapacity: metadata.count)
            for (key, value) in metadata {
                structured[metadataPrefix + key] = .string(value)
            }
            logger.log(level: Logger.Level(level), "\(message)", metadata: structured)
        }
    }
}

extension Logger.Level {
    /// The swift-log level of the same name as `level`: the two have the same seven levels.
    public init(_ level: LogLevel) {
        switch level {
        case .trace: self = .trace
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }
}
