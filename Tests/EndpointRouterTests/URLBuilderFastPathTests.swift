import Foundation
import Testing

@testable import EndpointRouter

/// The URL builder joins parts without intermediate arrays, and searches ASCII endpoints byte by
/// byte: the results must be those of the array-based code, kept here as the reference, and of the
/// scalar-based search that other endpoints take.
@Suite("URL building without intermediate arrays")
struct URLBuilderFastPathTests {
    static func referenceJoin(_ parts: [Substring]) -> String {
        func trimmed(_ part: Substring) -> Substring {
            var result = part
            while result.first == "/" { result = result.dropFirst() }
            while result.last == "/" { result = result.dropLast() }
            return result
        }
        let nonEmpty = parts.filter { !$0.isEmpty }
        let trimmedParts = nonEmpty.map(trimmed).filter { !$0.isEmpty }
        guard !trimmedParts.isEmpty else { return nonEmpty.isEmpty ? "" : "/" }
        let trailing = nonEmpty.last?.hasSuffix("/") == true ? "/" : ""
        return "/" + trimmedParts.joined(separator: "/") + trailing
    }

    static let pieces: [String] = [
        "", "/", "//", "a", "/a", "a/", "/a/b/", "v2", "ü", "/\u{301}", "a/\u{301}", "a b", "%2F", "\r\n", "/\r\n/", "\r\n/", "a//", "/ü/",
    ]

    @Test func joinMatchesTheReference() {
        for first in Self.pieces {
            for second in Self.pieces {
                for third in Self.pieces {
                    let parts = [Substring(first), Substring(second), Substring(third)]
                    #expect(
                        URLBuilder.join(parts[0], parts[1], parts[2]) == Self.referenceJoin(parts),
                        "\(first.debugDescription) \(second.debugDescription) \(third.debugDescription)")
                }
            }
        }
    }

    static let endpoints: [String] = [
        "", "todos", "todos?", "todos?a=1", "todos#top", "todos?a=1#top", "todos#a?b", "?x", "#x", "a?b?c", "a#b#c",
        "é?q=ü#f", "a\r\n?b", "\r\n#x", "a#\u{301}b?c", "a?\u{301}b", "x?#", "ü", "a b?c d",
    ]

    @Test(arguments: endpoints)
    func aQuestionMarkOrHashIsRefusedAsBytesAndAsScalars(_ endpoint: String) throws {
        let expected: Character? = endpoint.unicodeScalars.first { $0 == "?" || $0 == "#" }.map { Character($0) }
        for text in [endpoint, endpoint + "\u{E9}"] {
            if let expected {
                #expect(throws: HTTPClientError.delimiterInEndpoint(expected)) { try EndpointQuery.split(text) }
            } else {
                let split = try EndpointQuery.split(text)
                #expect(split.path == Substring(text) && split.query == nil)
            }
        }
    }

    @Test func theDeliberateQueryIsSplitOffByScalars() throws {
        let cases: [(endpoint: String, path: String, query: String?)] = [
            ("todos\(query: "a=1")", "todos", "a=1"), ("todos\(query: "")", "todos", ""),
            ("é\(query: "q=ü?x")", "é", "q=ü?x"), ("a\(query: "\u{301}b")", "a", "\u{301}b"),
            ("\u{0600}\(query: "b")", "\u{0600}", "b"), ("x\(query: "a=1")\(query: "b=2")", "x", "a=1&b=2"),
        ]
        for (endpoint, path, query) in cases {
            let split = try EndpointQuery.split(endpoint)
            #expect(split.path == Substring(path), "\(endpoint.debugDescription)")
            #expect(split.query == query.map { Substring($0) }, "\(endpoint.debugDescription)")
        }
    }

    @Test func queryOfTheEndpointAndParametersJoinAsBefore() throws {
        func url(_ endpoint: String, _ parameters: [String: Any]? = nil) throws -> String {
            try TestEndpoint(endpoint: endpoint, parameters: parameters).makeRequest().url.absoluteString
        }
        #expect(try url("todos\(query: "")", ["a": 1]) == "https://api.example.com/todos?a=1")
        #expect(try url("todos\(query: "")") == "https://api.example.com/todos")
        #expect(try url("todos\(query: "b=2")", ["a": 1]) == "https://api.example.com/todos?b=2&a=1")
        #expect(try url("todos\(query: "b=%2")", ["a": "x y"]) == "https://api.example.com/todos?b=%252&a=x%20y")
        #expect(try url("\(query: "q=\(segment: "..")")") == "https://api.example.com?q=..")
        #expect(try url("", ["a": 1]) == "https://api.example.com?a=1")
        #expect(try url("/") == "https://api.example.com/")
    }
}
