import Foundation
import Testing

@testable import EndpointRouter

/// Field and file names in multipart bodies are RFC 9110 quoted-strings: what a standard parser
/// reads back is exactly the name, and no name can break the header.
@Suite("Multipart names")
struct MultipartNameTests {
    static let names: [(String, String)] = [
        ("quote\"d.txt", #"quote\"d.txt"#),
        ("back\\slash.txt", #"back\\slash.txt"#),
        ("ends with \\", #"ends with \\"#),
        ("\"", #"\""#),
        ("a\r\nContent-Type: text/html", "a%0D%0AContent-Type: text/html"),
        ("nul\u{0}del\u{7F}esc\u{1B}", "nul%00del%7Fesc%1B"),
        ("tab\there", "tab\there"),
        ("ü 🚀 ; = ,", "ü 🚀 ; = ,"),
        ("%22", "%22"),
    ]

    @Test(arguments: names)
    func fileNameIsAQuotedString(_ name: String, _ expected: String) throws {
        var form = MultipartFormData(boundary: "B")
        form.append(Data("x".utf8), name: name, fileName: name)
        let head = try #require(String(data: try form.encode(), encoding: .utf8)?.split(separator: "\r\n").dropFirst().first)
        #expect(head == "Content-Disposition: form-data; name=\"\(expected)\"; filename=\"\(expected)\"")
    }

    /// A quoted-string reader as RFC 9110 §5.6.4 defines it (what Go's mime, Python's email and busboy
    /// implement): every name without control characters comes back exactly.
    @Test func standardParserReadsEveryNameBack() throws {
        var random = SeededGenerator(state: 0x5EED)
        let alphabet = Array("aZ09 \"\\;=,:/%'()<>@[]?{}\t".unicodeScalars) + ["ü", "🚀", "\u{301}"]
        for _ in 0..<500 {
            let name = String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...12, using: &random)).map { _ in
                        alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                    }))
            var form = MultipartFormData(boundary: "B")
            form.append(Data(), name: "f", fileName: name)
            let text = String(decoding: try form.encode(), as: UTF8.self)
            let parsed = try #require(Self.quotedParameter("filename", in: text), "\(name.debugDescription) → \(text.debugDescription)")
            #expect(Array(parsed.unicodeScalars) == Array(name.unicodeScalars), "\(name.debugDescription)")
        }
    }

    /// The unescaped value of `name="…"` in `text`, read scalar by scalar as a byte-oriented server
    /// would (a combining mark after the opening quote must not hide it, as it would from `Character`s).
    static func quotedParameter(_ name: String, in text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        let opening = Array("; \(name)=\"".unicodeScalars)
        guard
            let start = (0...max(0, scalars.count - opening.count)).first(where: {
                scalars.count >= opening.count && Array(scalars[$0..<$0 + opening.count]) == opening
            })
        else { return nil }
        var value = String.UnicodeScalarView()
        var escaped = false
        for scalar in scalars[(start + opening.count)...] {
            if escaped {
                value.append(scalar)
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if scalar == "\"" {
                return String(value)
            } else if scalar == "\r" || scalar == "\n" {
                return nil
            } else {
                value.append(scalar)
            }
        }
        return nil
    }
}
