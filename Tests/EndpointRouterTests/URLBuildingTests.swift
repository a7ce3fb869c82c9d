import Foundation
import Testing

@testable import EndpointRouter

@Suite("URL building")
struct URLBuildingTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let host: String
        let path: String
        let endpoint: String
        let expected: String
        var testDescription: String { "\(host) + \(path) + \(endpoint)" }
    }

    static let rows: [Row] = [
        Row(host: "https://api.example.com", path: "", endpoint: "todos", expected: "https://api.example.com/todos"),
        Row(host: "https://api.example.com/", path: "/v2/", endpoint: "/todos", expected: "https://api.example.com/v2/todos"),
        Row(host: "https://api.example.com", path: "v2", endpoint: "todos/", expected: "https://api.example.com/v2/todos/"),
        Row(
            host: "https://api.example.com:8443/base", path: "/v2", endpoint: "todos/1",
            expected: "https://api.example.com:8443/base/v2/todos/1"),
        Row(host: "http://127.0.0.1:8080", path: "", endpoint: "", expected: "http://127.0.0.1:8080"),
        Row(host: "https://api.example.com", path: "", endpoint: "a b/ü", expected: "https://api.example.com/a%20b/%C3%BC"),
        Row(host: "https://api.example.com", path: "", endpoint: "files/a%2Fb", expected: "https://api.example.com/files/a%2Fb"),
        Row(host: "https://api.example.com", path: "", endpoint: "100%", expected: "https://api.example.com/100%25"),
        Row(
            host: "https://api.example.com", path: "", endpoint: "todos\(query: "userId=1")",
            expected: "https://api.example.com/todos?userId=1"),
        Row(
            host: "https://api.example.com", path: "", endpoint: "todos\(query: "q=a b")", expected: "https://api.example.com/todos?q=a%20b"
        ),
        Row(host: "HTTPS://API.example.com", path: "", endpoint: "x", expected: "https://API.example.com/x"),
        Row(host: "http://[::1]:8080", path: "", endpoint: "x", expected: "http://[::1]:8080/x"),
        Row(host: " https://api.example.com ", path: "", endpoint: "x", expected: "https://api.example.com/x"),
        Row(
            host: "https://api.example.com", path: "", endpoint: "users/\(segment: "admin/x?x=1#y")",
            expected: "https://api.example.com/users/admin%2Fx%3Fx%3D1%23y"),
        Row(host: "https://api.example.com", path: "", endpoint: "todos/\(segment: 42)", expected: "https://api.example.com/todos/42"),
        Row(host: "https://api.example.com", path: "", endpoint: "a\r\nb", expected: "https://api.example.com/a%0D%0Ab"),
    ]

    @Test(arguments: rows)
    func buildsURL(_ row: Row) throws {
        let request = try TestEndpoint(host: row.host, path: row.path, endpoint: row.endpoint).makeRequest().urlRequest
        #expect(request.url?.absoluteString == row.expected)
    }

    @Test func endpointQueryIsKeptAndParametersFollowIt() throws {
        let request = try TestEndpoint(endpoint: "todos\(query: "userId=1")", parameters: ["completed": true]).makeRequest().urlRequest
        #expect(request.url?.absoluteString == "https://api.example.com/todos?userId=1&completed=true")
    }

    static let badHosts: [(String, String)] = [
        ("api.example.com", "no http or https scheme"),
        ("ftp://api.example.com", "no http or https scheme"),
        ("", "no http or https scheme"),
        ("https://", "names no server"),
        ("https:///path", "names no server"),
        ("https://user:secret@api.example.com", "carries credentials"),
        ("https://api.example.com?x=1", "query or fragment"),
        ("http://exa mple.com", "is not a URL"),
    ]

    @Test(arguments: badHosts)
    func rejectsBadHost(_ host: String, _ reason: String) {
        let error = #expect(throws: HTTPClientError.self) { try TestEndpoint(host: host, endpoint: "x").makeRequest().urlRequest }
        guard case .badURL(let message) = error else {
            Issue.record("expected .badURL, got \(String(describing: error))")
            return
        }
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains("secret"))
    }

    @Test func pathSegmentEscapesEverythingThatCouldChangeThePath() {
        #expect(pathSegment("a/b?c#d%e f\\g") == "a%2Fb%3Fc%23d%25e%20f%5Cg")
        #expect(pathSegment("...") == "...")
        #expect(pathSegment("file.json") == "file.json")
        #expect(pathSegment("ü") == "%C3%BC")
    }
}
