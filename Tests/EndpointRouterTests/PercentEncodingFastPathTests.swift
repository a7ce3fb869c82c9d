import Foundation
import Testing

@testable import EndpointRouter

/// Percent-encoding hands back text with nothing to escape uncopied and writes the rest into one
/// buffer: the bytes must be those of the plain byte-by-byte encoder, kept here as the reference.
@Suite("Percent-encoding fast path")
struct PercentEncodingFastPathTests {
    static func reference(_ text: String, keepingValidEscapes: Bool, allowed: (UInt8) -> Bool) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if allowed(byte) {
                output.append(byte)
            } else if keepingValidEscapes, byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                PercentEncoding.isHex(bytes[index + 1]), PercentEncoding.isHex(bytes[index + 2])
            {
                output.append(contentsOf: bytes[index...index + 2])
                index += 2
            } else {
                output.append(contentsOf: Array(String(format: "%%%02X", Int(byte)).utf8))
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    static let fixed = [
        "", "a", "abc-._~XYZ019", "a b", " ", "%", "%4", "%41", "%4g", "a%zz", "100%", "%%41", "ü", "a/b?c#d", "+&=",
        "\r\n", "\u{0}", "\u{7F}", "✓", "👩‍👩‍👧", "%E2%9C%93", "q=a b&c", "trailing%", "x%2", "%2F%2e",
    ]

    /// Deterministic mixes of the characters that matter: unreserved, reserved, `%`, hex digits, non-ASCII.
    static func generated() -> [String] {
        let alphabet: [String] = ["a", "Z", "0", "F", "f", "-", "~", "%", "/", "?", "#", " ", "+", "=", "&", "ü", "✓", "\n", "@", ":"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var texts: [String] = []
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 60)
            var text = ""
            for step in 0..<length {
                let pick = Int((state >> UInt64(4 * step % 56)) & 0xFF) % alphabet.count
                text += alphabet[pick]
            }
            texts.append(text)
        }
        return texts
    }

    @Test func encodeComponentMatchesTheReference() {
        for text in Self.fixed + Self.generated() {
            #expect(
                PercentEncoding.encodeComponent(text)
                    == Self.reference(text, keepingValidEscapes: false, allowed: PercentEncoding.isUnreserved), "\(text.debugDescription)")
        }
    }

    @Test func normalizeMatchesTheReference() {
        for text in Self.fixed + Self.generated() {
            #expect(
                PercentEncoding.normalize(text, allowed: PercentEncoding.isPathAllowed)
                    == Self.reference(text, keepingValidEscapes: true, allowed: PercentEncoding.isPathAllowed), "\(text.debugDescription)")
            #expect(
                PercentEncoding.normalize(text, allowed: PercentEncoding.isQueryAllowed)
                    == Self.reference(text, keepingValidEscapes: true, allowed: PercentEncoding.isQueryAllowed), "\(text.debugDescription)")
        }
    }

    @Test func textWithNothingToEscapeComesBackEqual() {
        let text = "abc-._~XYZ019"
        #expect(PercentEncoding.encodeComponent(text) == text)
        #expect(PercentEncoding.normalize("/a/b:c@d", allowed: PercentEncoding.isPathAllowed) == "/a/b:c@d")
    }

    @Test func formEdgeCases() throws {
        func query(_ parameters: [String: Any], _ style: QueryStyle = .default) throws -> String? {
            try TestEndpoint(endpoint: "x", parameters: parameters, queryStyle: style).makeRequest().url.query
        }
        #expect(try query(["": "v", "a": ""]) == "=v&a=")
        #expect(try query(["k": [Int]()]) == nil)
        #expect(try query(["k": [Int?.none as Any, 1, Int?.none as Any, "a b"]], QueryStyle(arrays: .commaSeparated)) == "k=1,a%20b")
        #expect(try query(["k": [Int?.none as Any]], QueryStyle(arrays: .commaSeparated)) == nil)
        #expect(try query(["k": [Int?.none as Any], "z": 1], QueryStyle(arrays: .commaSeparated)) == "z=1")
        #expect(try query(["a": ["b": [1, 2]]]) == "a%5Bb%5D%5B%5D=1&a%5Bb%5D%5B%5D=2")
        let form = try TestEndpoint(endpoint: "x", method: .post, body: .form(["b": "2 3", "a": "+", "": ""])).makeRequest()
        #expect(form.bodyText == "=&a=%2B&b=2%203")
    }
}
