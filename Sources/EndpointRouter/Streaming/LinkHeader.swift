import Foundation

/// The links of RFC 8288 `Link` header fields: `<https://api.example.com/items?page=2>; rel="next"`.
///
/// Servers write these by hand often enough that the parser never rejects a field: whatever it
/// cannot read is skipped up to the next link, so one malformed link does not hide a good `next`.
struct LinkHeader: Equatable {
    /// One link: its target as written (possibly relative) and its parameters.
    struct Link: Equatable {
        /// The URI reference between `<` and `>`, not yet resolved.
        var target: String
        /// The relation types of the first `rel` parameter, lower-cased: `rel="next last"` gives both.
        var relations: [String]
        /// Every parameter in order, names lower-cased, values unquoted; a parameter without `=` has "".
        var parameters: [(name: String, value: String)]

        static func == (lhs: Link, rhs: Link) -> Bool {
            lhs.target == rhs.target && lhs.relations == rhs.relations
                && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
        }
    }

    /// The links of every field, in order.
    var links: [Link]

    /// Parses the values of several `Link` fields; the order of fields and links is kept.
    init(fields: [String]) {
        links = fields.flatMap { Self.parse($0) }
    }

    /// Parses every `Link` field of `headers`.
    init(_ headers: HeaderFields) {
        self.init(fields: headers.values(for: "Link"))
    }

    /// The target of the first link whose relation types include `relation` (any casing) and whose
    /// context is `context`, the URL that answered.
    ///
    /// A link with an `anchor` parameter is about the resource the anchor names (RFC 8288, section
    /// 3.2), resolved against `context`: `<…/page/2>; anchor="https://other.example/"; rel="next"` is
    /// the other resource's next page, not this one's, and is skipped. An anchor that resolves to
    /// `context` itself (fragment aside) keeps the link; without `context` every anchored link is skipped.
    func target(rel relation: String, context: URL?) -> String? {
        let wanted = relation.lowercased()
        return links.first { link in
            guard link.relations.contains(wanted) else { return false }
            guard let anchor = link.parameters.first(where: { $0.name == "anchor" })?.value else { return true }
            guard let context else { return false }
            if anchor.isEmpty { return true }  // an empty reference is the context itself
            guard let resolved = URL(string: anchor, relativeTo: context)?.absoluteURL else { return false }
            return Self.withoutFragment(resolved) == Self.withoutFragment(context.absoluteURL)
        }?.target
    }

    private static func withoutFragment(_ url: URL) -> String {
        let text = url.absoluteString
        return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }

    // MARK: - Parsing

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let comma = UInt8(ascii: ",")
    private static let semicolon = UInt8(ascii: ";")
    private static let equals = UInt8(ascii: "=")
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let open = UInt8(ascii: "<")
    private static let close = UInt8(ascii: ">")

    /// The links of one field value.
    static func parse(_ value: String) -> [Link] {
        var cursor = Cursor(Array(value.utf8))
        var links: [Link] = []
        while true {
            cursor.skip { $0 == space || $0 == tab || $0 == comma }
            guard let first = cursor.peek else { break }
            guard first == open else {
                // Not a link: skip it whole, including any `<...>` or quoted text holding a comma.
                cursor.skipElement(until: [comma])
                continue
            }
            cursor.advance()
            guard let target = cursor.take(until: close) else { break }
            cursor.advance()
            var link = Link(target: target, relations: [], parameters: [])
            var sawRel = false
            while let parameter = cursor.nextParameter() {
                link.parameters.append(parameter)
                // RFC 8288 §3.3: only the first `rel` counts, later ones are ignored.
                if parameter.name == "rel", !sawRel {
                    sawRel = true
                    link.relations = parameter.value.lowercased()
                        .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
                        .map(String.init)
                }
            }
            links.append(link)
        }
        return links
    }

    /// A cursor over the bytes of one field value. Every delimiter is ASCII, so slicing between
    /// delimiters keeps any UTF-8 inside a target or a value whole.
    private struct Cursor {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func advance() { if index < bytes.count { index += 1 } }

        mutating func skip(while matches: (UInt8) -> Bool) {
            while let byte = peek, matches(byte) { index += 1 }
        }

        mutating func skipWhitespace() { skip { $0 == space || $0 == tab } }

        /// The text up to `delimiter`, leaving the cursor on it; `nil` (cursor at the end) when
        /// there is none.
        mutating func take(until delimiter: UInt8) -> String? {
            let start = index
            while let byte = peek, byte != delimiter { index += 1 }
            guard peek == delimiter else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Moves to the next byte of `stops` outside `<...>` and quoted strings, or to the end.
        mutating func skipElement(until stops: Set<UInt8>) {
            while let byte = peek, !stops.contains(byte) {
                switch byte {
                case open:
                    index += 1
                    skip { $0 != close }
                    advance()
                case quote: _ = quotedString()
                default: index += 1
                }
            }
        }

        /// The next `; name[=value]` of the current link, or `nil` at the link's end (a comma,
        /// consumed, or the end of the field).
        mutating func nextParameter() -> (name: String, value: String)? {
            while true {
                skipWhitespace()
                guard let byte = peek else { return nil }
                if byte == comma {
                    index += 1
                    return nil
                }
                guard byte == semicolon else {
                    // Stray text after a target or a value: dropped up to the next parameter or link.
                    skipElement(until: [semicolon, comma])
                    continue
                }
                index += 1
                skipWhitespace()
                let nameStart = index
                skip { $0 != equals && $0 != semicolon && $0 != comma && $0 != space && $0 != tab }
                let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
                skipWhitespace()
                // A parameter without `=` has an empty value.
                var value = ""
                if peek == equals {
                    index += 1
                    skipWhitespace()
                    if peek == quote {
                        value = quotedString()
                    } else {
                        let valueStart = index
                        skip { $0 != semicolon && $0 != comma && $0 != space && $0 != tab }
                        value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                    }
                }
                if name.isEmpty { continue }
                return (name, value)
            }
        }

        /// The content of the quoted string at the cursor, `\` escapes undone; an unterminated one
        /// runs to the end of the field.
        mutating func quotedString() -> String {
            index += 1
            var content: [UInt8] = []
            while let byte = peek {
                index += 1
                if byte == quote { break }
                if byte == backslash, let escaped = peek {
                    index += 1
                    content.append(escaped)
                } else {
                    content.append(byte)
                }
            }
            return String(decoding: content, as: UTF8.self)
        }
    }
}
