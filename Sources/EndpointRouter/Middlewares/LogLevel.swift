/// How important a log message is, with the same seven levels as `swift-log`'s `Logger.Level`, so a
/// ``LogSink`` can map one onto the other case by case.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Very detailed tracing.
    case trace
    /// Information useful while debugging.
    case debug
    /// Ordinary operation: the default for request and response lines.
    case info
    /// Normal but significant.
    case notice
    /// Something went wrong that may need attention: the default for failed calls.
    case warning
    /// An error.
    case error
    /// A critical error.
    case critical

    /// Orders levels from ``trace`` to ``critical``.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}
