import Foundation
import Testing

@testable import EndpointRouter

@Suite("Bodies: JSON parameters, EndpointBody, multipart")
struct BodyEncodingTests {
    struct Row: CustomTestStringConvertible, @unchecked Sendable {  // value type, never mutated; the `Any`s are strings, numbers, arrays
        let name: String
        let parameters: [String: Any]
        let expected: String
        var testDescription: String { name }
    }

    static let jsonRows: [Row] = [
        Row(
            name: "sorted keys and scalars", parameters: ["b": true, "a": 1, "c": 1.5, "d": "x", "e": NSNull()],
            expected: #"{"a":1,"b":true,"c":1.5,"d":"x","e":null}"#),
        Row(
            name: "escaping", parameters: ["s": "quote\" back\\ nl\n tab\t ctl\u{01} /ü✓"],
            expected: #"{"s":"quote\" back\\ nl\n tab\t ctl\u0001 /ü✓"}"#),
        Row(
            name: "nesting", parameters: ["a": [1, "two", ["x": false]], "o": ["k": [] as [Any]]],
            expected: #"{"a":[1,"two",{"x":false}],"o":{"k":[]}}"#),
        Row(
            name: "optionals", parameters: ["none": Optional<Int>.none as Any, "some": Optional(3) as Any],
            expected: #"{"none":null,"some":3}"#),
        Row(name: "bool stays bool, int stays int", parameters: ["one": 1, "yes": true], expected: #"{"one":1,"yes":true}"#),
    ]

    @Test(arguments: jsonRows)
    func encodesJSONParameters(_ row: Row) throws {
        let request = try TestEndpoint(endpoint: "x", method: .post, parameters: row.parameters).makeRequest().urlRequest
        #expect(request.bodyText == row.expected)
        let reparsed = try JSONSerialization.jsonObject(with: request.httpBody ?? Data())
        #expect(reparsed is [String: Any])
    }

    static let unencodable: [Row] = [
        Row(name: "date", parameters: ["when": Date()], expected: "when"),
        Row(name: "nan", parameters: ["x": Double.nan], expected: "x"),
        Row(name: "infinity", parameters: ["x": Double.infinity], expected: "x"),
        Row(name: "nested date", parameters: ["a": [["when": Date()]]], expected: "a[0].when"),
        Row(name: "custom type", parameters: ["x": APIError(error: "e", message: "m")], expected: "x"),
    ]

    @Test(arguments: unencodable)
    func valuesJSONCannotCarryAreTypedErrors(_ row: Row) {
        let parameters = row.parameters
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", method: .post, parameters: parameters).makeRequest().urlRequest
        }
        guard case .encodingFailed(let message) = error else {
            Issue.record("expected .encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("JSON cannot carry"), "\(message)")
        #expect(message.contains("'\(row.expected)'"), "\(message)")
    }

    @Test func encodableBodyUsesTheEndpointEncoderAndParametersGoToQuery() throws {
        struct NewTodo: Encodable, Sendable {
            let title: String
            let dueDate: Date
        }
        struct API: HTTPClient {
            var host: String { "https://api.example.com" }
            var endpoint: String { "todos" }
            var method: RequestMethod { .post }
            var parameters: [String: Any]? { ["notify": true] }
            var body: EndpointBody? { .json(NewTodo(title: "Write tests", dueDate: Date(timeIntervalSince1970: 0))) }
            var encoder: JSONEncoder {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = .sortedKeys
                return encoder
            }
        }
        let request = try API().makeRequest().urlRequest
        #expect(request.url?.absoluteString == "https://api.example.com/todos?notify=true")
        #expect(request.bodyText == #"{"dueDate":"1970-01-01T00:00:00Z","title":"Write tests"}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func failingEncodableIsATypedError() {
        struct Broken: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "nope"))
            }
        }
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", method: .post, body: .json(Broken())).makeRequest().urlRequest
        }
        guard case .encodingFailed(let message) = error else {
            Issue.record("expected .encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("Broken"))
    }

    @Test func formBodySortsAndEscapes() throws {
        let request = try TestEndpoint(
            endpoint: "login", method: .post,
            body: .form(["user": "ann", "password": "p+s&w=rd ü"])
        ).makeRequest().urlRequest
        #expect(request.bodyText == "password=p%2Bs%26w%3Drd%20%C3%BC&user=ann")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func dataBodyKeepsBytesAndContentType() throws {
        let bytes = Data([0, 1, 2, 255])
        let request = try TestEndpoint(endpoint: "upload", method: .put, body: .data(bytes, contentType: "image/png")).makeRequest()
            .urlRequest
        #expect(request.httpBody == bytes)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "image/png")
    }

    @Test func endpointContentTypeWins() throws {
        let request = try TestEndpoint(
            endpoint: "x", method: .post, parameters: ["a": 1],
            headers: ["content-type": "application/vnd.api+json"]
        ).makeRequest().urlRequest
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test(arguments: [RequestMethod.get, .head])
    func bodyOnGetOrHeadIsRefused(_ method: RequestMethod) {
        let error = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", method: method, body: .data(Data("x".utf8), contentType: "text/plain")).makeRequest().urlRequest
        }
        guard case .encodingFailed(let message) = error else {
            Issue.record("expected .encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("cannot carry a body"))
        #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", method: method, parameters: ["a": 1], parameterEncoding: .json).makeRequest().urlRequest
        }
    }

    @Test func multipartBytesAreExact() throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.append("Holiday \"2026\"", name: "title")
        form.append(Data([0x89, 0x50]), name: "photo", fileName: "beach\r\n.png", mimeType: "image/png")
        form.append(Data("raw".utf8), name: "blob", fileName: "blob.bin")
        let request = try TestEndpoint(endpoint: "upload", method: .post, body: .multipart(form)).makeRequest().urlRequest
        var expected = Data()
        expected.append(Data("--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday \"2026\"\r\n".utf8))
        expected.append(
            Data(
                "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"beach%0D%0A.png\"\r\nContent-Type: image/png\r\n\r\n"
                    .utf8))
        expected.append(Data([0x89, 0x50]))
        expected.append(
            Data(
                "\r\n--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"blob.bin\"\r\nContent-Type: application/octet-stream\r\n\r\nraw\r\n--XyZ--\r\n"
                    .utf8))
        #expect(request.httpBody == expected)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=XyZ")
    }

    @Test func multipartRejectsBadBoundaryAndCollisions() {
        var bad = MultipartFormData(boundary: "has space")
        bad.append("x", name: "a")
        #expect(throws: HTTPClientError.self) { try bad.encode() }
        var colliding = MultipartFormData(boundary: "B")
        colliding.append("a--Bc", name: "a")
        #expect(throws: HTTPClientError.self) { try colliding.encode() }
    }

    @Test func freshBoundariesDiffer() {
        #expect(MultipartFormData().boundary != MultipartFormData().boundary)
    }
}
