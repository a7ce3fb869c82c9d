/// Percent-encoding written byte by byte, because Foundation's helpers each leave a trap:
/// `URLComponents.queryItems` sends `+` raw (servers read it as a space) and
/// `percentEncodedQueryItems` traps on a stray `%`.
enum PercentEncoding {
    /// RFC 3986 unreserved characters: the only ones that mean the same everywhere in a URL.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Characters a path may hold literally (RFC 3986 `pchar` plus `/`).
    static func isPathAllowed(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    /// Characters a query may hold literally (`pchar`, `/` and `?`).
    static func isQueryAllowed(_ byte: UInt8) -> Bool {
        isPathAllowed(byte) || byte == UInt8(ascii: "?")
    }

    /// Encodes every byte outside the unreserved set: for one query key or value, or one path segment.
    static func encodeComponent(_ text: String) -> String {
        encode(text, keepingValidEscapes: false, allowed: isUnreserved)
    }

    /// Encodes bytes the allowed set does not cover, but keeps well-formed `%XX` escapes
    /// (a bare `%` becomes `%25`), so text that is already encoded is not encoded twice.
    static func normalize(_ text: String, allowed: (UInt8) -> Bool) -> String {
        encode(text, keepingValidEscapes: true, allowed: allowed)
    }

    private static func encode(_ text: String, keepingValidEscapes: Bool, allowed: (UInt8) -> Bool) -> String {
        var text = text
        let encoded = text.withUTF8 { bytes -> String? in
            // Most keys, values and paths need no escape at all: they are handed back without a copy.
            guard let firstEscaped = bytes.firstIndex(where: { !allowed($0) }) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count * 3) { output in
                var written = firstEscaped
                _ = output.initialize(from: bytes[..<firstEscaped])
                var index = firstEscaped
                while index < bytes.count {
                    let byte = bytes[index]
                    if allowed(byte) {
                        output[written] = byte
                        written += 1
                    } else if keepingValidEscapes, byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                        isHex(bytes[index + 1]), isHex(bytes[index + 2])
                    {
                        output[written] = byte
                        output[written + 1] = bytes[index + 1]
                        output[written + 2] = bytes[index + 2]
                        written += 3
                        index += 2
                    } else {
                        output[written] = UInt8(ascii: "%")
                        output[written + 1] = hexDigit(byte >> 4)
                        output[written + 2] = hexDigit(byte & 0x0F)
                        written += 3
                    }
                    index += 1
                }
                return written
            }
        }
        return encoded ?? text
    }

    /// The upper-case hex digit of a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// Decodes every well-formed `%XX` escape and keeps anything else as it is, the way lenient
    /// servers read a path; invalid UTF-8 becomes U+FFFD. Unlike `removingPercentEncoding`, one stray
    /// `%` does not stop the rest from being decoded.
    static func decodeLeniently(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    static func isHex(_ byte: UInt8) -> Bool { hexValue(byte) != nil }
}
