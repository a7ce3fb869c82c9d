import Foundation
import Testing

@testable import EndpointRouter

/// Every place the README and the articles name the default transport agrees with what
/// `DefaultTransport` picks (issue 43: three documents once said `URLSessionTransport` on Linux
/// while the code chose `CurlTransport`).
@Suite struct DocumentedDefaultTransportTests {
    /// A sentence that names a transport as the default, for one platform or, when `platform` is
    /// nil, for every platform.
    struct Claim: Equatable, CustomStringConvertible {
        var file: String
        var transport: String
        var platform: String?
        var description: String { "\(file): \(transport) as the default on \(platform ?? "every platform")" }
    }

    /// The shapes the documents use; a new shape that names a default transport belongs here.
    /// Text is matched with its code voice removed and its lines joined.
    static let shapes: [(pattern: String, transport: Int, platform: Int?)] = [
        // "CurlTransport (the default on Linux)", "| CurlTransport | The default on Linux |",
        // "URLSessionTransport stays available on Linux and is the default on Apple platforms"
        (#"(\w+Transport)\b(?:(?!Transport)[^.;]){0,40}?\b[Tt]he default on (Linux|Apple platforms)"#, 1, 2),
        // "CurlTransport, the Linux default", but not "(the Linux default before CurlTransport)"
        (#"(\w+Transport)\b(?:(?!Transport)[^.;|]){0,20}?\bthe (Linux) default(?! before)"#, 1, 2),
        // "The default transport on Linux, CurlTransport", "the default on Linux is CurlTransport"
        (#"[Dd]efault (?:transport )?on (Linux|Apple platforms)(?:,| is) (\w+Transport)\b"#, 2, 1),
        // "On Linux, the default is CurlTransport"; "on Linux: the default, CurlTransport"
        (#"[Oo]n (Linux|Apple platforms)[,:] the default(?:,| is) (\w+Transport)\b"#, 2, 1),
        // "(URLSessionTransport by default)": a claim for every platform
        (#"\((\w+Transport) by default\)"#, 1, nil),
    ]

    static func claims(in text: String, file: String) -> [Claim] {
        let flat = text.replacingOccurrences(of: "`", with: "")
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        let range = NSRange(flat.startIndex..., in: flat)
        var claims: [Claim] = []
        for shape in shapes {
            guard let expression = try? NSRegularExpression(pattern: shape.pattern) else {
                Issue.record("the pattern \(shape.pattern) does not compile")
                continue
            }
            for match in expression.matches(in: flat, range: range) {
                func group(_ index: Int) -> String? {
                    Range(match.range(at: index), in: flat).map { String(flat[$0]) }
                }
                guard let transport = group(shape.transport) else { continue }
                claims.append(Claim(file: file, transport: transport, platform: shape.platform.flatMap(group)))
            }
        }
        return claims
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The README, every article of every DocC catalog and every README of the companion packages.
    static func documents() -> [URL] {
        var found = [root.appendingPathComponent("README.md")]
        for folder in ["Sources", "Transports", "Integrations"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if url.path.contains("/.build") {
                    enumerator?.skipDescendants()
                } else if url.pathExtension == "md" {
                    found.append(url)
                }
            }
        }
        return found
    }

    static var currentPlatform: String {
        #if os(Linux)
            "Linux"
        #else
            "Apple platforms"
        #endif
    }

    @Test func everyDocumentNamesTheTransportTheLibraryPicks() throws {
        // What `DefaultTransport` picks on this machine (libcurl loads on every machine CI runs on);
        // the fallback is documented separately, with `fallbackReason`.
        let chosen = "\(type(of: DefaultTransport.choose(CurlTransport.availability).transport))"
        var stating: Set<String> = []
        for url in Self.documents() {
            let text = try String(contentsOf: url, encoding: .utf8)
            let name = String(url.path.dropFirst(Self.root.path.count + 1))
            for claim in Self.claims(in: text, file: name) where claim.platform == nil || claim.platform == Self.currentPlatform {
                #expect(claim.transport == chosen, "\(claim), but DefaultTransport picks \(chosen)")
                stating.insert(name)
            }
        }
        // So that a reworded sentence cannot drop out of the check unnoticed.
        let docc = "Sources/EndpointRouter/EndpointRouter.docc/"
        let expected: Set = [
            "README.md", docc + "Transports.md", docc + "Linux.md", docc + "Streaming.md", docc + "AsyncHTTPClientTransport.md",
        ]
        #expect(
            expected.subtracting(stating).isEmpty,
            "no statement of the default transport found in \(expected.subtracting(stating).sorted())")
    }

    @Test func theShapesFindAWrongClaimAndSkipAHistoricalOne() {
        let text = """
            The default transport on Linux, `URLSessionTransport`, is wrong here.
            ``CurlTransport`` (the default on Apple platforms) is wrong too.
            Moving from ``URLSessionTransport`` (the Linux default before ``CurlTransport``) is history.
            The provider's `transport` (``URLSessionTransport`` by default).
            On Linux, the default is ``CurlTransport``.
            """
        #expect(
            Self.claims(in: text, file: "t").sorted { $0.description < $1.description }
                == [
                    Claim(file: "t", transport: "CurlTransport", platform: "Apple platforms"),
                    Claim(file: "t", transport: "CurlTransport", platform: "Linux"),
                    Claim(file: "t", transport: "URLSessionTransport", platform: "Linux"),
                    Claim(file: "t", transport: "URLSessionTransport", platform: nil),
                ].sorted { $0.description < $1.description })
    }
}
