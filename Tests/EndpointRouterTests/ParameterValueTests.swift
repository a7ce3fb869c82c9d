import Foundation
import Testing

@testable import EndpointRouter

/// Numbers and booleans go out as what they are, whether Swift values or `NSNumber`s (every number
/// in a `JSONSerialization` dictionary is one): integers without a fraction, floating-point values
/// as their shortest decimal, booleans as booleans.
@Suite("Numbers and booleans in parameters")
struct ParameterValueTests {
    struct Row: CustomTestStringConvertible, @unchecked Sendable {  // never mutated; `value` is a Swift number or an immutable NSNumber
        let name: String
        let value: Any
        /// The text in a query or form (literal booleans) and in JSON.
        let text: String
        var numeric: String? = nil
        var json: String? = nil
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "NSNumber true", value: NSNumber(value: true), text: "true", numeric: "1"),
        Row(name: "NSNumber false", value: NSNumber(value: false), text: "false", numeric: "0"),
        Row(name: "NSNumber Int8 5", value: NSNumber(value: Int8(5)), text: "5"),
        Row(name: "NSNumber Int8 1 is not a boolean", value: NSNumber(value: Int8(1)), text: "1"),
        Row(name: "NSNumber UInt8 0 is not a boolean", value: NSNumber(value: UInt8(0)), text: "0"),
        Row(name: "NSNumber Int 25", value: NSNumber(value: 25), text: "25"),
        Row(name: "NSNumber Int64 min", value: NSNumber(value: Int64.min), text: "-9223372036854775808"),
        Row(name: "NSNumber Int64 max", value: NSNumber(value: Int64.max), text: "9223372036854775807"),
        Row(name: "NSNumber UInt64 max", value: NSNumber(value: UInt64.max), text: "18446744073709551615"),
        Row(name: "NSNumber Float 0.1", value: NSNumber(value: Float(0.1)), text: "0.1"),
        Row(name: "NSNumber Double 0.1", value: NSNumber(value: 0.1), text: "0.1"),
        Row(name: "NSNumber Double 25.0 stays a Double", value: NSNumber(value: 25.0), text: "25.0"),
        Row(name: "NSDecimalNumber", value: NSDecimalNumber(string: "12.50"), text: "12.5"),
        Row(name: "NSDecimalNumber far from 1", value: NSDecimalNumber(string: "-1.3427325713826764e77"), text: "-1.3427325713826764e+77"),
        Row(name: "NSDecimalNumber tiny", value: NSDecimalNumber(string: "5e-54"), text: "5e-54"),
        Row(name: "Swift Bool", value: true, text: "true", numeric: "1"),
        Row(name: "Swift Int8", value: Int8(-5), text: "-5"),
        Row(name: "Swift UInt64 max", value: UInt64.max, text: "18446744073709551615"),
        Row(name: "Swift Float 0.1", value: Float(0.1), text: "0.1"),
        Row(name: "Swift Double", value: 1e-7, text: "1e-07"),
        Row(name: "Swift Decimal", value: Decimal(string: "0.3") as Any, text: "0.3"),
    ]

    @Test(arguments: rows)
    func query(_ row: Row) throws {
        let literal = try TestEndpoint(endpoint: "x", parameters: ["k": row.value]).makeRequest()
        #expect(literal.url.query == "k=" + PercentEncoding.encodeComponent(row.text))
        let numeric = try TestEndpoint(endpoint: "x", parameters: ["k": row.value], queryStyle: QueryStyle(bools: .numeric)).makeRequest()
        #expect(numeric.url.query == "k=" + PercentEncoding.encodeComponent(row.numeric ?? row.text))
    }

    @Test(arguments: rows)
    func form(_ row: Row) throws {
        let request = try TestEndpoint(endpoint: "x", method: .post, parameters: ["k": row.value], parameterEncoding: .form).makeRequest()
        #expect(request.bodyText == "k=" + PercentEncoding.encodeComponent(row.text))
    }

    @Test(arguments: rows)
    func json(_ row: Row) throws {
        let request = try TestEndpoint(endpoint: "x", method: .post, parameters: ["k": row.value, "list": [row.value]]).makeRequest()
        #expect(request.bodyText == #"{"k":\#(row.text),"list":[\#(row.text)]}"#)
    }

    /// A whole dictionary from `JSONSerialization`, as an app decoding a cached payload would pass it.
    static var parsed: [String: Any] {
        (try? JSONSerialization.jsonObject(
            with: Data(
                """
                {"b": true, "f": false, "i": 25, "z": 0, "d": 0.1, "big": 18446744073709551615,
                 "neg": -9223372036854775808, "e": 1e300, "list": [true, 1, 2.5]}
                """.utf8))) as? [String: Any] ?? [:]
    }

    @Test func dictionaryFromJSONSerializationInTheQuery() throws {
        #expect(Self.parsed.count == 9)
        let request = try TestEndpoint(endpoint: "x", parameters: Self.parsed, queryStyle: QueryStyle(arrays: .repeatedKey)).makeRequest()
        #expect(
            request.url.query
                == "b=true&big=18446744073709551615&d=0.1&e=1e%2B300&f=false&i=25&list=true&list=1&list=2.5&neg=-9223372036854775808&z=0")
    }

    @Test func dictionaryFromJSONSerializationAsJSON() throws {
        let request = try TestEndpoint(endpoint: "x", method: .post, parameters: Self.parsed).makeRequest()
        #expect(
            request.bodyText == #"""
                {"b":true,"big":18446744073709551615,"d":0.1,"e":1e+300,"f":false,"i":25,"list":[true,1,2.5],"neg":-9223372036854775808,"z":0}
                """#)
    }

    @Test func nonFiniteNSNumberIsRefusedInJSON() {
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", method: .post, parameters: ["ratio": NSNumber(value: Double.nan)]).makeRequest()
        }
        guard case .encodingFailed(let message) = error else {
            Issue.record("expected .encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("'ratio'"))
    }
}
