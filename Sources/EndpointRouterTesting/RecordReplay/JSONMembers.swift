import Foundation

/// The members of every object in a JSON text, at any depth and inside arrays, each with the byte
/// range of its value in the original text.
///
/// Redaction rewrites only those ranges, so everything else in a recording (spacing, key order,
/// how numbers are written) stays exactly as the server sent it; re-serializing the whole document
/// would have turned `1.0` into `1` or reordered keys, and replay would no longer serve what was
/// recorded.
struct JSONMembers {
    struct Member {
        /// The key as decoded (escapes resolved).
        let key: String
        /// Where the value's bytes are, from its first byte to just past its last.
        let value: Range<Int>
    }

    /// In document order: a member comes before the members nested in its value.
    let members: [Member]

    /// Nesting beyond this is not parsed (the text is treated as not JSON), so a hostile body cannot
    /// exhaust the stack.
    static let maximumDepth = 512

    /// The members of `text`, or `nil` when it is not one complete JSON value.
    init?(_ text: Data) {
        var parser = Parser(bytes: [UInt8](text))
        parser.skipWhitespace()
        guard parser.parseValue(depth: 0), parser.skipWhitespace(), parser.isAtEnd else { return nil }
        members = parser.members.map { Member(key: $0.key, value: $0.start..<$0.end) }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var members: [(key: String, start: Int, end: Int)] = []

        var isAtEnd: Bool { index == bytes.count }

        @discardableResult
        mutating func skipWhitespace() -> Bool {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            return true
        }

        mutating func parseValue(depth: Int) -> Bool {
            guard index < bytes.count, depth < JSONMembers.maximumDepth else { return false }
            switch bytes[index] {
            case UInt8(ascii: "{"): return parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return parseString() != nil
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return parseNumber()
            }
        }

        mutating func parseObject(depth: Int) -> Bool {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return true
            }
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let keyRange = parseString(),
                    let key = Self.decodeString(bytes[keyRange])
                else { return false }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                skipWhitespace()
                let slot = members.count
                members.append((key, index, index))
                guard parseValue(depth: depth) else { return false }
                members[slot].end = index
                skipWhitespace()
                guard index < bytes.count else { return false }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return true
                }
                guard bytes[index] == UInt8(ascii: ",") else { return false }
                index += 1
                skipWhitespace()
            }
        }

        mutating func parseArray(depth: Int) -> Bool {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return true
            }
            while true {
                guard parseValue(depth: depth) else { return false }
                skipWhitespace()
                guard index < bytes.count else { return false }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return true
                }
                guard bytes[index] == UInt8(ascii: ",") else { return false }
                index += 1
                skipWhitespace()
            }
        }

        /// The range of the string token, quotes included.
        mutating func parseString() -> Range<Int>? {
            let start = index
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return start..<index
                case 0x00..<0x20: return nil
                default: index += 1
                }
            }
            return nil
        }

        mutating func parseNumber() -> Bool {
            let start = index
            while index < bytes.count, "+-.0123456789eE".utf8.contains(bytes[index]) { index += 1 }
            return index > start && Double(String(decoding: bytes[start..<index], as: UTF8.self)) != nil
        }

        mutating func literal(_ word: String) -> Bool {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count,
                bytes[index..<(index + expected.count)].elementsEqual(expected)
            else { return false }
            index += expected.count
            return true
        }

        /// A string token's text; escapes are left to JSONSerialization, which knows them all.
        static func decodeString(_ token: ArraySlice<UInt8>) -> String? {
            guard token.contains(UInt8(ascii: "\\")) else {
                return String(decoding: token.dropFirst().dropLast(), as: UTF8.self)
            }
            return (try? JSONSerialization.jsonObject(with: Data(token), options: [.fragmentsAllowed])) as? String
        }
    }
}
