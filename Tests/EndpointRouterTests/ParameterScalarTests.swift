import Foundation
import Testing

@testable import EndpointRouter

/// Substrings and characters are text; decimals are written without trailing zeros, in scientific
/// notation once they are very large or very small.
@Suite("Parameter scalars: Substring, Character, Decimal")
struct ParameterScalarTests {
    func query(_ parameters: [String: Any]) throws -> String? {
        try TestEndpoint(endpoint: "q", parameters: parameters).makeRequest().urlRequest.url?.absoluteString
    }

    @Test func substringAndCharacterAreText() throws {
        let text = "hello world"
        #expect(try query(["s": text.prefix(5)]) == "https://api.example.com/q?s=hello")
        #expect(try query(["c": Character("é")]) == "https://api.example.com/q?c=%C3%A9")
    }

    @Test func decimalsDropTrailingZeros() throws {
        let large = Decimal(sign: .plus, exponent: 30, significand: 1_200)
        #expect(ParameterValue.text(of: large) == "1.2e+33")
        let small = Decimal(sign: .minus, exponent: -40, significand: 5_000)
        #expect(ParameterValue.text(of: small) == "-5e-37")
        #expect(try query(["d": large]) == "https://api.example.com/q?d=1.2e%2B33")
    }
}
