import Foundation
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Header names are compared byte by byte when ASCII and through `lowercased()` otherwise, and the
/// reserved names are recognised without lower-casing: each must answer exactly as the
/// `lowercased()` code did, kept here as the reference.
@Suite("Header names compared without lower-cased copies")
struct HeaderComparisonTests {
    static let names: [String] = [
        "", "a", "A", "Accept", "accept", "ACCEPT", "Accepts", "Content-Type", "content-type", "CONTENT-TYPE", "Content_Type",
        "X-Trace-ID", "x-trace-id", "x-trace-iD", "@", "`", "[", "{", "Ünicode", "ünicode", "ÜNICODE", "\u{212A}", "k", "K",
        "İ", "i", "i\u{307}", "Straße", "STRASSE", "strasse", "ẞ", "ß", "Σ", "σ", "ς", "é", "e\u{301}", "É", "1", "-",
    ]

    @Test func caseInsensitiveEqualsMatchesLowercased() {
        for first in Self.names {
            for second in Self.names {
                let reference = first.utf8.count == second.utf8.count && first.lowercased() == second.lowercased()
                #expect(first.caseInsensitiveEquals(second) == reference, "\(first.debugDescription) \(second.debugDescription)")
            }
        }
    }

    @Test func nonASCIINamesStillMatchTheirOtherCasing() {
        var headers = HTTPHeaders()
        headers.add(name: "Ünicode", value: "1")
        headers.add(name: "\u{212A}", value: "kelvin")
        #expect(headers["ünicode"] == "1")
        #expect(headers["ÜNICODE"] == "1")
        // The Kelvin sign lower-cases to "k" but has three UTF-8 bytes: not the same name for lookups,
        // the same key once lower-cased (as it always was for `dictionary`).
        #expect(headers["k"] == nil)
        headers.add(name: "k", value: "small")
        #expect(headers.dictionary == ["Ünicode": "1", "\u{212A}": "kelvin, small"])
    }

    @Test(arguments: [
        "Content-Length", "content-length", "CONTENT-LENGTH", "cOnTeNt-LeNgTh", "Transfer-Encoding", "TRANSFER-ENCODING",
        "host", "HOST", "hOsT", "Connection", "CONNECTION", "connectioN",
    ])
    func reservedNamesAreRefusedInAnyCasing(_ name: String) {
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", headers: [name: "1"]).makeRequest()
        }
        guard case .invalidHeader(let message) = error else {
            Issue.record("expected .invalidHeader, got \(String(describing: error))")
            return
        }
        #expect(message.contains("set by the transport"))
        #expect(throws: HTTPClientError.self) {
            try RequestChecks.checkHeaders(HTTPHeaders([HTTPHeaders.Field(name: name, value: "1")]))
        }
    }

    @Test(arguments: ["Hosts", "Hos", "Date", "X-Host", "Connectio", "Content-Lengths", "Content-Lengt", "Transfer-Encodin", "Keep-Alive"])
    func namesNearTheReservedOnesAreAllowed(_ name: String) throws {
        let request = try TestEndpoint(endpoint: "x", headers: [name: "1"]).makeRequest()
        #expect(request.headers[name] == "1")
    }

    @Test func everyTokenCharacterIsAllowedAndNothingElse() throws {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8(0)...UInt8(0x7F) {
            let name = "X" + String(decoding: [byte], as: UTF8.self)
            #expect(RequestChecks.isToken(name) == tokenCharacters.contains(byte), "byte \(byte)")
        }
        #expect(!RequestChecks.isToken("Xé"))
        #expect(!RequestChecks.isToken(""))
    }
}
