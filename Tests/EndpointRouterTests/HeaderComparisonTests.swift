import Foundation
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Header names are compared byte by byte when ASCII and through `lowercased()` otherwise, the
/// reserved names are recognised without lower-casing, and `urlRequest` merges repeated names
/// without a dictionary of lower-cased keys: each must answer exactly as the `lowercased()` code did,
/// kept here as the reference.
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
                #expect(first.hasSameLowercase(as: second) == (first.lowercased() == second.lowercased()))
            }
        }
    }

    /// `HeaderFields.dictionary` and `urlRequest` as they were: a dictionary keyed by lower-cased names.
    static func referenceMerge(_ fields: [HeaderFields.Field], separator: String) -> [String: String] {
        var result: [String: String] = [:]
        var canonical: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let name = canonical[key], let existing = result[name] {
                result[name] = existing + separator + field.value
            } else {
                canonical[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    @Test func mergingMatchesTheReference() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for round in 0..<500 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Up to 40 fields, so that both the in-place comparison and the hashing path run.
            let count = Int(state >> 58) % 41
            var headers = HeaderFields()
            var generator = state
            for index in 0..<count {
                generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                headers.add(name: Self.names[Int(generator >> 33) % Self.names.count], value: "v\(index)")
            }
            let reference = Self.referenceMerge(headers.fields, separator: ", ")
            #expect(headers.dictionary == reference, "round \(round)")
            #expect(headers.merged(separator: ",") == Self.referenceMerge(headers.fields, separator: ","), "round \(round)")
        }
    }

    @Test func nonASCIINamesStillMatchTheirOtherCasing() {
        var headers = HeaderFields()
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
            try RequestChecks.checkHeaders(HeaderFields([HeaderFields.Field(name: name, value: "1")]))
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

    @Test func urlRequestCarriesEveryMethod() throws {
        let url = try #require(URL(string: "https://api.example.com/x"))
        for method in RequestMethod.allCases {
            let request = OutgoingRequest(method: method, url: url).urlRequest
            #expect(request.httpMethod == method.rawValue)
            #expect(request.httpBody == nil)
        }
    }

    @Test func urlRequestMergesRepeatsUnderTheFirstCasing() throws {
        let url = try #require(URL(string: "https://api.example.com/x"))
        var headers = HeaderFields()
        for (name, value) in [("Accept", "a"), ("X-B", "1"), ("ACCEPT", "b"), ("x-b", "2"), ("accept", "c"), ("X-C", "3")] {
            headers.add(name: name, value: value)
        }
        let request = OutgoingRequest(url: url, headers: headers).urlRequest
        #expect(request.allHTTPHeaderFields == ["Accept": "a,b,c", "X-B": "1,2", "X-C": "3"])
    }
}
