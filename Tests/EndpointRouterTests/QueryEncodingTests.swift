import Foundation
import Testing

@testable import EndpointRouter

@Suite("Query and form encoding")
struct QueryEncodingTests {
    struct Row: CustomTestStringConvertible, @unchecked Sendable {  // value type, never mutated; the `Any`s are strings, numbers, arrays
        let name: String
        let parameters: [String: Any]
        var style: QueryStyle = .default
        let expected: String
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "sorted keys", parameters: ["b": 2, "a": 1, "c": "x"], expected: "a=1&b=2&c=x"),
        Row(name: "plus is escaped", parameters: ["q": "a+b"], expected: "q=a%2Bb"),
        Row(
            name: "reserved characters", parameters: ["q": "a&b=c#d;e%f[g]h i"],
            expected: "q=a%26b%3Dc%23d%3Be%25f%5Bg%5Dh%20i"),
        Row(name: "other delimiters", parameters: ["q": "/?@!$'()*,:"], expected: "q=%2F%3F%40%21%24%27%28%29%2A%2C%3A"),
        Row(name: "non-ASCII as UTF-8", parameters: ["q": "ü é ✓"], expected: "q=%C3%BC%20%C3%A9%20%E2%9C%93"),
        Row(name: "unreserved kept", parameters: ["q": "AZaz09-._~"], expected: "q=AZaz09-._~"),
        Row(name: "keys are escaped too", parameters: ["a b&c=d+": "v"], expected: "a%20b%26c%3Dd%2B=v"),
        Row(name: "empty value", parameters: ["q": ""], expected: "q="),
        Row(name: "bools literal", parameters: ["t": true, "f": false], expected: "f=false&t=true"),
        Row(name: "bools numeric", parameters: ["t": true, "f": false], style: QueryStyle(bools: .numeric), expected: "f=0&t=1"),
        Row(
            name: "numbers as Swift prints them", parameters: ["i": 42, "d": 1.5, "n": -7, "big": UInt64.max, "f": Float(0.25)],
            expected: "big=18446744073709551615&d=1.5&f=0.25&i=42&n=-7"),
        Row(name: "arrays with brackets", parameters: ["k": ["a", "b"]], expected: "k%5B%5D=a&k%5B%5D=b"),
        Row(name: "arrays repeated", parameters: ["k": ["a", "b"]], style: QueryStyle(arrays: .repeatedKey), expected: "k=a&k=b"),
        Row(
            name: "arrays comma separated, commas in values escaped", parameters: ["k": ["a,b", "c", 1]],
            style: QueryStyle(arrays: .commaSeparated), expected: "k=a%2Cb,c,1"),
        Row(name: "nested dictionaries", parameters: ["a": ["b": "c", "d": ["e": 1]]], expected: "a%5Bb%5D=c&a%5Bd%5D%5Be%5D=1"),
        Row(name: "array of dictionaries", parameters: ["a": [["b": 1], ["b": 2]]], expected: "a%5B%5D%5Bb%5D=1&a%5B%5D%5Bb%5D=2"),
        Row(
            name: "nil optionals are left out", parameters: ["a": Optional<String>.none as Any, "b": Optional("x") as Any], expected: "b=x"),
        Row(name: "NSNull is an empty value", parameters: ["a": NSNull()], expected: "a="),
        Row(
            name: "UUID and URL",
            parameters: [
                "id": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") as Any,
                "u": URL(string: "https://x.example/a?b=c") as Any,
            ],
            expected: "id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F&u=https%3A%2F%2Fx.example%2Fa%3Fb%3Dc"),
    ]

    @Test(arguments: rows)
    func encodesQuery(_ row: Row) throws {
        let request = try TestEndpoint(endpoint: "search", parameters: row.parameters, queryStyle: row.style).makeRequest().urlRequest
        #expect(request.url?.query == row.expected)
        #expect(request.httpBody == nil)
    }

    @Test(arguments: rows)
    func encodesFormBodyWithTheSameRules(_ row: Row) throws {
        let request = try TestEndpoint(
            endpoint: "search", method: .post, parameters: row.parameters,
            parameterEncoding: .form, queryStyle: row.style
        ).makeRequest().urlRequest
        #expect(request.bodyText == row.expected)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func unsupportedValueIsATypedErrorNamingTheKey() {
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", parameters: ["when": ["at": Date()]]).makeRequest().urlRequest
        }
        guard case .encodingFailed(let message) = error else {
            Issue.record("expected .encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("'when[at]'"))
        #expect(message.contains("Date"))
    }

    @Test func commaSeparatedArraysRejectContainers() {
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", parameters: ["k": [["a": 1]]], queryStyle: QueryStyle(arrays: .commaSeparated)).makeRequest()
                .urlRequest
        }
        guard case .encodingFailed = error else {
            Issue.record("expected .encodingFailed, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: [RequestMethod.get, .head, .delete, .options, .trace])
    func automaticUsesTheQueryForBodilessMethods(_ method: RequestMethod) throws {
        let request = try TestEndpoint(endpoint: "x", method: method, parameters: ["a": 1]).makeRequest().urlRequest
        #expect(request.url?.query == "a=1")
        #expect(request.httpBody == nil)
        #expect(request.httpMethod == method.rawValue)
    }

    @Test(arguments: [RequestMethod.post, .put, .patch])
    func automaticUsesJSONForOtherMethods(_ method: RequestMethod) throws {
        let request = try TestEndpoint(endpoint: "x", method: method, parameters: ["a": 1]).makeRequest().urlRequest
        #expect(request.url?.query == nil)
        #expect(request.bodyText == #"{"a":1}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func queryEncodingCanBeForcedForPost() throws {
        let request = try TestEndpoint(endpoint: "x", method: .post, parameters: ["a": 1], parameterEncoding: .query).makeRequest()
            .urlRequest
        #expect(request.url?.query == "a=1")
        #expect(request.httpBody == nil)
    }
}
