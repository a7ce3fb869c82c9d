import Foundation

/// A `multipart/form-data` body taken apart, for the offline server to echo an upload the way
/// httpbin does: text fields in `form`, files in `files` (a file that is not UTF-8 text as a
/// `data:` URL). Just enough of RFC 7578 for this example, not a general parser.
struct MultipartParts {
    struct Part {
        var name = ""
        var fileName: String?
        var contentType: String?
        var data = Data()
    }

    let parts: [Part]

    /// `nil` when `contentType` names no boundary or the body does not start with it.
    init?(body: Data, contentType: String?) {
        guard let contentType, let range = contentType.range(of: "boundary=") else { return nil }
        let boundary = Data("--\(contentType[range.upperBound...])".utf8)
        guard body.starts(with: boundary) else { return nil }
        var parts: [Part] = []
        var rest = body[...]
        while let start = rest.range(of: boundary) {
            rest = rest[start.upperBound...]
            if rest.starts(with: Data("--".utf8)) { break }   // the closing delimiter
            guard let end = rest.range(of: boundary) else { return nil }
            parts.append(Self.part(rest[rest.startIndex..<end.lowerBound]))
        }
        self.parts = parts
    }

    /// What httpbin's `POST /post` answers: `{"form": {...}, "files": {...}}`.
    var echo: [String: [String: String]] {
        var form: [String: String] = [:]
        var files: [String: String] = [:]
        for part in parts {
            if part.fileName == nil {
                form[part.name] = String(decoding: part.data, as: UTF8.self)
            } else if let text = String(data: part.data, encoding: .utf8) {
                files[part.name] = text
            } else {
                files[part.name] = "data:\(part.contentType ?? "application/octet-stream");base64,\(part.data.base64EncodedString())"
            }
        }
        return ["form": form, "files": files]
    }

    /// One part between delimiters: `\r\n`, header lines, a blank line, the content, `\r\n`.
    private static func part(_ bytes: Data.SubSequence) -> Part {
        var part = Part()
        let separator = Data("\r\n\r\n".utf8)
        guard let blank = bytes.range(of: separator) else { return part }
        let head = String(decoding: bytes[bytes.startIndex..<blank.lowerBound], as: UTF8.self)
        part.data = Data(bytes[blank.upperBound...].dropLast(2))
        for line in head.split(separator: "\r\n") {
            if line.lowercased().hasPrefix("content-type:") {
                part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
            } else if line.lowercased().hasPrefix("content-disposition:") {
                part.name = quotedValue("name", in: line) ?? ""
                part.fileName = quotedValue("filename", in: line)
            }
        }
        return part
    }

    /// The value of `key="…"` in a header line (no escapes: the example's names have none).
    private static func quotedValue(_ key: String, in line: Substring) -> String? {
        guard let start = line.range(of: "; \(key)=\"") else { return nil }
        let value = line[start.upperBound...]
        return value.firstIndex(of: "\"").map { String(value[..<$0]) }
    }
}
