import Foundation

/// A `multipart/form-data` body: text fields and files, for uploads.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Holiday", name: "title")
/// form.append(jpegData, name: "photo", fileName: "beach.jpg", mimeType: "image/jpeg")
/// // in the endpoint:  var body: EndpointBody? { .multipart(form) }
/// ```
public struct MultipartFormData: Sendable, Hashable {
    private struct Part: Sendable, Hashable {
        var name: String
        var fileName: String?
        var mimeType: String?
        var data: Data
    }

    /// The boundary between parts; the `Content-Type` header carries it.
    public let boundary: String
    private var parts: [Part] = []

    /// Creates an empty form with a fresh random boundary.
    public init() {
        boundary = "EndpointRouter-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Creates an empty form with a fixed boundary, for reproducible bytes in tests.
    ///
    /// The boundary must be 1 to 70 letters, digits or `'()+_,-./:=?`; an invalid one fails the
    /// request with `.encodingFailed`.
    public init(boundary: String) {
        self.boundary = boundary
    }

    /// Appends a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, fileName: nil, mimeType: nil, data: Data(value.utf8)))
    }

    /// Appends bytes: a file when `fileName` is given. A file without `mimeType` is sent as
    /// `application/octet-stream`.
    ///
    /// Names go out as quoted-strings: `"` and `\` are backslash-escaped and control characters
    /// percent-encoded (`quote"d.txt` is sent as `filename="quote\"d.txt"`).
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, mimeType: String? = nil) {
        parts.append(Part(name: name, fileName: fileName, mimeType: mimeType, data: data))
    }

    /// `multipart/form-data; boundary=…`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The encoded body.
    public func encode() throws(HTTPClientError) -> Data {
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(Self.boundaryCharacters.contains) else {
            throw .encodingFailed("the multipart boundary '\(boundary)' is invalid; use 1 to 70 letters, digits or '()+_,-./:=?")
        }
        let delimiter = Data("--\(boundary)".utf8)
        var body = Data()
        for part in parts {
            if part.data.range(of: delimiter) != nil {
                throw .encodingFailed("the multipart part '\(part.name)' contains the boundary; use another boundary")
            }
            if let mimeType = part.mimeType, mimeType.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                throw .encodingFailed("the MIME type of multipart part '\(part.name)' contains a control character")
            }
            body.append(delimiter)
            var head = "\r\nContent-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
            if let fileName = part.fileName {
                head += "; filename=\"\(Self.quoted(fileName))\""
            }
            if let mimeType = part.mimeType ?? (part.fileName == nil ? nil : "application/octet-stream") {
                head += "\r\nContent-Type: \(mimeType)"
            }
            head += "\r\n\r\n"
            body.append(Data(head.utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(delimiter)
        body.append(Data("--\r\n".utf8))
        return body
    }

    /// Writes a field or file name as the inside of an RFC 9110 quoted-string (the form RFC 7578
    /// parameters take): `"` as `\"` and `\` as `\\`, so servers that read quoted-strings get the
    /// name back exactly: Go's `mime/multipart`, Python's `email` and Werkzeug (Flask), busboy (Express,
    /// Fastify), Vapor's multipart-kit. A quoted-string cannot carry CR, LF or other control
    /// characters, so those are percent-encoded (`%0D`, `%0A`) as browsers do; a name can never end
    /// the quoted string or the header line.
    ///
    /// Browsers write `"` as `%22` instead, which only some servers undo (Werkzeug does; Go, Python's
    /// `email`, busboy and multipart-kit keep `%22`). One known gap: multipart-kit unescapes only
    /// `\"`, so a `\` in a name reaches a Vapor server doubled.
    static func quoted(_ name: String) -> String {
        var output = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\t": output += "\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                output += "%" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// RFC 2046 `bcharsnospace`, built once rather than per encode.
    private static let boundaryCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=?".utf8)
}
