import Foundation

/// A `multipart/form-data` body taken apart, for the offline server to echo an upload the way
/// httpbin does. Just enough of RFC 7578 for this example, not a general parser.
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
            if rest.starts(with: Data("--".utf8)) { break }  // the closing delimiter
            guard let end = rest.range(of: boundary) else { return nil }
            parts.append(Self.part(rest[rest.startIndex..<end.lowerBound]))
        }
        self.parts = parts
    }

    /// What httpbin's `POST /post` answers for this body.
    var echo: UploadEcho {
        var echo = UploadEcho()
        for part in parts {
            if part.fileName == nil {
                echo.form[part.name] = String(decoding: part.data, as: UTF8.self)
            } else {
                echo.files[part.name] = UploadEcho.text(of: part.data, contentType: part.contentType)
            }
        }
        return echo
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
