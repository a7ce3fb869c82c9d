import Foundation

/// Dates as HTTP writes them, for `Expires`, `Date`, `Last-Modified` and `Retry-After`.
enum HTTPDate {
    // Behind a lock: a DateFormatter is not safe to use from several threads at once everywhere.
    // The first is IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only form written; the
    // obsolete RFC 850 and asctime forms follow because RFC 9110 §5.6.7 obliges a recipient to read them.
    private static let formatters = Locked<[DateFormatter]>(
        ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"].map { format in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            return formatter
        })

    /// The date `text` names in any of the three forms, or `nil`.
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return formatters.withLock { formatters in
            formatters.lazy.compactMap { $0.date(from: trimmed) }.first
        }
    }

    /// `date` as IMF-fixdate.
    static func format(_ date: Date) -> String {
        formatters.withLock { $0.first?.string(from: date) ?? "" }
    }
}
