import Foundation

/// The parts of a `multipart/*` body, without the boundary that separates them.
///
/// `MultipartFormData()` picks a random boundary, so the same form gives different bytes on every
/// run; a recording keyed by those bytes would never replay. Keyed by its parts (each one's header
/// lines, which hold the field name, file name and content type, and its bytes), it does.
struct MultipartParts {
    struct Part {
        /// The part's header lines as sent, without the blank line that ends them.
        let head: Data
        let content: Data
    }

    let parts: [Part]

    /// The parts of `body`, or `nil` when `contentType` is not `multipart/*` with a boundary or the
    /// body is not framed by that boundary (then the caller keys the bytes as they are).
    init?(_ body: Data, contentType: String?) {
        guard let contentType, let boundary = Self.boundary(in: contentType) else { return nil }
        let delimiter = Data("--\(boundary)".utf8)
        let lineBreak = Data("\r\n".utf8)
        let headEnd = Data("\r\n\r\n".utf8)
        // Every occurrence of the delimiter; the text before the first is a preamble nobody reads.
        var positions: [Range<Data.Index>] = []
        var searchFrom = body.startIndex
        while let found = body.range(of: delimiter, in: searchFrom..<body.endIndex) {
            positions.append(found)
            searchFrom = found.upperBound
        }
        guard positions.count >= 2, body[positions[positions.count - 1].upperBound...].starts(with: Data("--".utf8)) else {
            return nil
        }
        var parts: [Part] = []
        for (current, next) in zip(positions, positions.dropFirst()) {
            var part = body[current.upperBound..<next.lowerBound]
            // The line break after a delimiter opens the part; the one before the next closes it.
            guard part.starts(with: lineBreak), part.count >= 2 * lineBreak.count,
                part.suffix(lineBreak.count).elementsEqual(lineBreak)
            else { return nil }
            part = part.dropFirst(lineBreak.count).dropLast(lineBreak.count)
            if part.starts(with: lineBreak) {
                // No header lines at all: the part is its content.
                parts.append(Part(head: Data(), content: Data(part.dropFirst(lineBreak.count))))
            } else if let end = part.range(of: headEnd) {
                parts.append(Part(head: Data(part[..<end.lowerBound]), content: Data(part[end.upperBound...])))
            } else {
                return nil
            }
        }
        self.parts = parts
    }

    /// The `boundary` parameter of a `multipart/*` media type, unquoted.
    private static func boundary(in contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = pieces.first, type.lowercased().hasPrefix("multipart/") else { return nil }
        for parameter in pieces.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
