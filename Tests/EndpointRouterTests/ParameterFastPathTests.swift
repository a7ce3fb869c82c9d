import Foundation
import Testing

@testable import EndpointRouter

/// `unwrap` opens optionals without `Mirror`, and the common types (`String`, `Int`, `Bool`,
/// `Double`, `NSNumber`) skip the casts: both must read every value exactly as reflection and the
/// general path did.
@Suite("Parameter values without reflection")
struct ParameterFastPathTests {
    /// What `unwrap` did with `Mirror`, kept here as the reference.
    static func reflectedUnwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let wrapped = mirror.children.first?.value else { return nil }
        return reflectedUnwrap(wrapped)
    }

    struct Sample: CustomTestStringConvertible, @unchecked Sendable {  // never mutated; values are immutable
        let name: String
        let value: Any
        var testDescription: String { name }
    }

    static let samples: [Sample] = [
        Sample(name: "Int", value: 1),
        Sample(name: "String", value: "s"),
        Sample(name: "nil Int?", value: Int?.none as Any),
        Sample(name: "Int? some", value: Int?.some(1) as Any),
        Sample(name: "Int?? some(nil)", value: Int??.some(.none) as Any),
        Sample(name: "Int?? some(some)", value: Int??.some(2) as Any),
        Sample(name: "Any? holding a nil String?", value: Any?.some(String?.none as Any) as Any),
        Sample(name: "Any? nil", value: Any?.none as Any),
        Sample(name: "NSNull", value: NSNull()),
        Sample(name: "array", value: [1, 2]),
        Sample(name: "dictionary with a nil", value: ["a": Int?.none as Any]),
        Sample(name: "optional array", value: [Int]?.some([1]) as Any),
        Sample(name: "optional NSNumber boolean", value: NSNumber?.some(NSNumber(value: true)) as Any),
        Sample(name: "optional AnyObject", value: AnyObject?.some(NSNumber(value: 3)) as Any),
        Sample(name: "AnyHashable of a nil optional is not an optional", value: AnyHashable(Int?.none)),
        Sample(name: "AnyHashable of an optional", value: AnyHashable(Int?.some(1))),
        Sample(name: "optional AnyHashable of a nil optional", value: AnyHashable?.some(AnyHashable(Int?.none)) as Any),
        Sample(name: "NSArray", value: NSArray(array: [1])),
    ]

    @Test(arguments: samples)
    func unwrapMatchesReflection(_ sample: Sample) {
        let reflected = Self.reflectedUnwrap(sample.value)
        let unwrapped = ParameterValue.unwrap(sample.value)
        #expect((reflected == nil) == (unwrapped == nil))
        if let reflected, let unwrapped {
            #expect(ObjectIdentifier(type(of: reflected)) == ObjectIdentifier(type(of: unwrapped)))
            #expect(String(describing: reflected) == String(describing: unwrapped))
        }
    }

    static let scalars: [Sample] = [
        Sample(name: "String", value: "a b+c"),
        Sample(name: "empty String", value: ""),
        Sample(name: "Int", value: 42),
        Sample(name: "negative Int", value: Int.min),
        Sample(name: "Bool true", value: true),
        Sample(name: "Bool false", value: false),
        Sample(name: "Double", value: 0.1),
        Sample(name: "Double whole", value: 25.0),
        Sample(name: "Double infinity", value: Double.infinity),
        Sample(name: "Double NaN", value: Double.nan),
        Sample(name: "NSNumber true", value: NSNumber(value: true)),
        Sample(name: "NSNumber false", value: NSNumber(value: false)),
        Sample(name: "NSNumber Int8 1", value: NSNumber(value: Int8(1))),
        Sample(name: "NSNumber UInt64 max", value: NSNumber(value: UInt64.max)),
        Sample(name: "NSNumber Double", value: NSNumber(value: 0.1)),
        Sample(name: "NSDecimalNumber", value: NSDecimalNumber(string: "12.50")),
        Sample(name: "JSONSerialization true", value: Self.parsed("t")),
        Sample(name: "JSONSerialization 1", value: Self.parsed("one")),
        Sample(name: "JSONSerialization 0.5", value: Self.parsed("half")),
    ]

    /// A value as `JSONSerialization` hands it over (an `NSNumber` on Linux), not wrapped in an optional.
    static func parsed(_ key: String) -> Any {
        let object = try? JSONSerialization.jsonObject(with: Data(#"{"t": true, "one": 1, "half": 0.5}"#.utf8))
        return (object as? [String: Any])?[key] ?? NSNull()
    }

    @Test(arguments: scalars)
    func commonScalarMatchesTheGeneralPath(_ sample: Sample) throws {
        let fast = try #require(ParameterValue.commonScalar(sample.value))
        let general = try #require(ParameterValue.unwrap(sample.value).flatMap(ParameterValue.scalar))
        #expect(Self.describe(fast) == Self.describe(general))
    }

    @Test func otherTypesTakeTheGeneralPath() {
        let others: [Any] = [
            Int?.some(1) as Any, Int8(1), UInt(2), Float(0.5), Decimal(1), Substring("s"), Character("c"), UUID(), NSNull(),
            [1], ["a": 1], AnyHashable("s"), NSString(string: "s"),
        ]
        for value in others {
            #expect(ParameterValue.commonScalar(value) == nil, "\(type(of: value))")
        }
    }

    static func describe(_ scalar: ParameterValue.Scalar) -> String {
        switch scalar {
        case .string(let text): "string \(text)"
        case .bool(let bool): "bool \(bool)"
        case .number(let text, let isFinite): "number \(text) \(isFinite)"
        case .null: "null"
        }
    }

    @Test func nestedOptionalsInADictionaryGoOutAsBefore() throws {
        let parameters: [String: Any] = [
            "none": Int?.none as Any,
            "some": Int?.some(3) as Any,
            "deep": String??.some(.some("x")) as Any,
            "deepNone": String??.some(.none) as Any,
            "inner": ["a": Bool?.some(true) as Any, "b": Double?.none as Any],
            "list": [Int?.some(1) as Any, Int?.none as Any, NSNumber(value: false)],
        ]
        let query = try TestEndpoint(endpoint: "x", parameters: parameters).makeRequest()
        #expect(query.url.query == "deep=x&inner%5Ba%5D=true&list%5B%5D=1&list%5B%5D=false&some=3")
        let json = try TestEndpoint(endpoint: "x", method: .post, parameters: parameters).makeRequest()
        #expect(
            json.bodyText
                == #"{"deep":"x","deepNone":null,"inner":{"a":true,"b":null},"list":[1,null,false],"none":null,"some":3}"#)
    }

    @Test func nsNumberBooleansStayBooleans() throws {
        let parameters: [String: Any] = ["t": NSNumber(value: true), "one": NSNumber(value: 1), "parsed": Self.parsed("t")]
        let query = try TestEndpoint(endpoint: "x", parameters: parameters).makeRequest()
        #expect(query.url.query == "one=1&parsed=true&t=true")
        let numeric = try TestEndpoint(endpoint: "x", parameters: parameters, queryStyle: QueryStyle(bools: .numeric)).makeRequest()
        #expect(numeric.url.query == "one=1&parsed=1&t=1")
        let json = try TestEndpoint(endpoint: "x", method: .post, parameters: parameters).makeRequest()
        #expect(json.bodyText == #"{"one":1,"parsed":true,"t":true}"#)
    }

    @Test func nonFiniteDoublesAreStillRefusedInJSON() {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(throws: HTTPClientError.self) {
                try TestEndpoint(endpoint: "x", method: .post, parameters: ["r": value]).makeRequest()
            }
        }
    }
}
