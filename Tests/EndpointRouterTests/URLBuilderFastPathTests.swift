import Foundation
import Testing

@testable import EndpointRouter

/// The URL builder joins parts and splits the endpoint without intermediate arrays, and searches
/// ASCII endpoints byte by byte: the results must be those of the array- and Character-based code,
/// kept here as the reference.
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

    static func referenceSplit(_ endpoint: String) -> (path: Substring, query: Substring?) {
        var text = Substring(endpoint)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        guard let question = text.firstIndex(of: "?") else { return (text, nil) }
        return (text[text.startIndex..<question], text[text.index(after: question)...])
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
    func splitEndpointMatchesTheCharacterSearch(_ endpoint: String) {
        let split = URLBuilder.splitEndpoint(endpoint)
        let reference = Self.referenceSplit(endpoint)
        #expect(split.path == reference.path)
        #expect(split.query == reference.query)
    }

    @Test func queryOfTheEndpointAndParametersJoinAsBefore() throws {
        func url(_ endpoint: String, _ parameters: [String: Any]? = nil) throws -> String {
            try TestEndpoint(endpoint: endpoint, parameters: parameters).makeRequest().url.absoluteString
        }
        #expect(try url("todos?", ["a": 1]) == "https://api.example.com/todos?a=1")
        #expect(try url("todos?") == "https://api.example.com/todos")
        #expect(try url("todos?b=2", ["a": 1]) == "https://api.example.com/todos?b=2&a=1")
        #expect(try url("todos?b=%2", ["a": "x y"]) == "https://api.example.com/todos?b=%252&a=x%20y")
        #expect(try url("?q=\(segment: "..")") == "https://api.example.com?q=..")
        #expect(try url("", ["a": 1]) == "https://api.example.com?a=1")
        #expect(try url("/") == "https://api.example.com/")
    }
}
