import Foundation

/// Dates as HTTP writes them (`Sun, 06 Nov 1994 08:49:37 GMT`), for `Expires`, `Date` and
/// `Last-Modified`.
enum HTTPDate {
    // Behind a lock: a DateFormatter is not safe to use from several threads at once everywhere.
    private static let formatter = Locked<DateFormatter>({
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }())

    static func parse(_ text: String) -> Date? {
        formatter.withLock { $0.date(from: text) }
    }

    static func format(_ date: Date) -> String {
        formatter.withLock { $0.string(from: date) }
    }
}
