import Foundation

/// Reads a `Retry-After` value (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
enum RetryAfter {
    /// The wait `value` asks for, measured from `now`; zero for a date in the past, `nil` when it is
    /// neither form.
    static func delay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Absurd values only need to be larger than any policy's cap.
            return .seconds(Int64(text.prefix(12)) ?? .max / 2)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }
}
