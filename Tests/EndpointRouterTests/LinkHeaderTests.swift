import Foundation
import Testing

@testable import EndpointRouter

/// The RFC 8288 `Link` parser that pagination reads its next page from: real server shapes, the
/// grammar's corners, and input that is not a link at all.
@Suite("Link header parsing")
struct LinkHeaderTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let fields: [String]
        /// The next target, or nil when there is none.
        let next: String?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "GitHub's shape",
            fields: [
                #"<https://api.github.com/organizations/1/repos?page=2>; rel="next", "#
                    + #"<https://api.github.com/organizations/1/repos?page=5>; rel="last""#
            ],
            next: "https://api.github.com/organizations/1/repos?page=2"),
        Row(
            name: "next after prev and first",
            fields: [#"<https://x.test/?page=1>; rel="prev", <https://x.test/?page=1>; rel="first", <https://x.test/?page=3>; rel="next""#],
            next: "https://x.test/?page=3"),
        Row(name: "unquoted rel", fields: ["<https://x.test/2>; rel=next"], next: "https://x.test/2"),
        Row(name: "several relation types", fields: [#"<https://x.test/2>; rel="next last""#], next: "https://x.test/2"),
        Row(name: "relation types among spaces", fields: [#"<https://x.test/2>; rel="  last   next ""#], next: "https://x.test/2"),
        Row(name: "upper-case parameter and value", fields: ["<https://x.test/2>; REL=NEXT"], next: "https://x.test/2"),
        Row(
            name: "comma inside the URL", fields: [#"<https://x.test/items?ids=1,2,3&page=2>; rel="next""#],
            next: "https://x.test/items?ids=1,2,3&page=2"),
        Row(name: "semicolon inside the URL", fields: [#"<https://x.test/a;v=1?page=2>; rel="next""#], next: "https://x.test/a;v=1?page=2"),
        Row(
            name: "several Link fields",
            fields: [#"<https://x.test/1>; rel="first""#, #"<https://x.test/2>; rel="next""#],
            next: "https://x.test/2"),
        Row(
            name: "other parameters around rel", fields: [#"<https://x.test/2>; title="a, b; c"; rel="next"; type="text/html""#],
            next: "https://x.test/2"),
        Row(
            name: "escaped quote in a value", fields: [#"<https://x.test/2>; title="say \"hi\", then"; rel=next"#], next: "https://x.test/2"
        ),
        Row(name: "no whitespace", fields: [#"<https://x.test/1>;rel="prev",<https://x.test/2>;rel="next""#], next: "https://x.test/2"),
        Row(name: "whitespace around =", fields: [#"<https://x.test/2> ; rel = "next""#], next: "https://x.test/2"),
        Row(name: "only the first rel counts", fields: [#"<https://x.test/2>; rel="last"; rel="next""#], next: nil),
        Row(name: "relative target", fields: [#"</items?page=2>; rel="next""#], next: "/items?page=2"),
        Row(name: "no rel", fields: ["<https://x.test/2>; title=next"], next: nil),
        Row(name: "rel of another name", fields: [#"<https://x.test/2>; rel="nextpage""#], next: nil),
        Row(name: "empty field", fields: [""], next: nil),
        Row(
            name: "garbage before a good link", fields: [#"garbage "with, quotes", <https://x.test/2>; rel="next""#],
            next: "https://x.test/2"),
        Row(name: "garbage after a target", fields: [#"<https://x.test/2> junk; rel="next""#], next: "https://x.test/2"),
        Row(name: "unterminated target", fields: [#"<https://x.test/2; rel="next""#], next: nil),
        Row(name: "unterminated quoted value", fields: [#"<https://x.test/2>; rel="next"#], next: "https://x.test/2"),
        Row(name: "stray separators", fields: [#",,; ;=, <https://x.test/2>;;; =x; rel=next,,"#], next: "https://x.test/2"),
    ]

    @Test(arguments: rows)
    func nextTarget(_ row: Row) {
        #expect(LinkHeader(fields: row.fields).target(rel: "next", context: Self.page) == row.next)
    }

    /// The URL that answered, for the rows: a link's context (RFC 8288 §3.2).
    static let page = URL(string: "https://x.test/items?page=1")

    /// `anchor` sets a link's context: a link about another resource is not this page's next one.
    static let anchored: [(field: String, next: String?)] = [
        (#"</page/2>; anchor="https://other.example/"; rel="next""#, nil),
        (#"</page/2>; rel="next"; anchor="https://other.example/items?page=1""#, nil),
        (#"</page/2>; anchor="/elsewhere"; rel="next""#, nil),
        (#"</page/2>; anchor="https://x.test/items?page=1"; rel="next""#, "/page/2"),
        (#"</page/2>; anchor="?page=1"; rel="next""#, "/page/2"),
        (##"</page/2>; anchor="#top"; rel="next""##, "/page/2"),
        (#"</page/2>; anchor=""; rel="next""#, "/page/2"),
        (#"</other/2>; anchor="https://other.example/"; rel="next", </page/2>; rel="next""#, "/page/2"),
    ]

    @Test(arguments: anchored.indices)
    func aLinkAnchoredElsewhereIsNotThisPagesNext(_ row: Int) {
        let (field, next) = Self.anchored[row]
        #expect(LinkHeader(fields: [field]).target(rel: "next", context: Self.page) == next, "\(field)")
    }

    /// Pagination itself: an anchored `next` ends the pages instead of reading another resource's.
    @Test func paginationStopsAtALinkAnchoredElsewhere() async throws {
        let requests = Locked(0)
        let transport = ClosureTransport { request in
            requests.withLock { $0 += 1 }
            let link = #"</page/2>; anchor="https://other.example/"; rel="next""#
            return IncomingResponse(
                statusCode: 200, headers: ["Content-Type": "application/json", "Link": link], body: Data("[1]".utf8), url: request.url)
        }
        let endpoint = TestEndpoint(host: "https://x.test", endpoint: "items", timeout: 5, transport: transport)
        var pages = 0
        for try await _ in endpoint.pages(of: [Int].self) { pages += 1 }
        #expect(pages == 1)
        #expect(requests.withLock { $0 } == 1)
    }

    @Test func parametersAreKeptInOrderWithRelationsLowerCased() {
        let links = LinkHeader(fields: [#"<https://x.test/2>; Rel="Next Last"; title="A \"B\""; hreflang=en; crossorigin"#]).links
        #expect(links.count == 1)
        #expect(links.first?.target == "https://x.test/2")
        #expect(links.first?.relations == ["next", "last"])
        #expect(links.first?.parameters.map(\.name) == ["rel", "title", "hreflang", "crossorigin"])
        #expect(links.first?.parameters.map(\.value) == ["Next Last", #"A "B""#, "en", ""])
    }

    @Test func readsEveryLinkFieldOfTheHeaders() {
        var headers = HeaderFields()
        headers.add(name: "Link", value: #"<https://x.test/1>; rel="prev""#)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "link", value: #"<https://x.test/3>; rel="next", <https://x.test/9>; rel="last""#)
        let header = LinkHeader(headers)
        #expect(header.links.map(\.target) == ["https://x.test/1", "https://x.test/3", "https://x.test/9"])
        #expect(header.target(rel: "NEXT", context: Self.page) == "https://x.test/3")
        #expect(header.target(rel: "last", context: Self.page) == "https://x.test/9")
    }

    @Test func relativeTargetResolvesAgainstTheURLThatAnswered() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/items?page=1"))
        let pathRelative = try RedirectFollower.resolve("items?page=2", against: base, failingURL: base)
        #expect(pathRelative.absoluteString == "https://api.example.com/v1/items?page=2")
        let rootRelative = try RedirectFollower.resolve("/v2/items?page=2#top", against: base, failingURL: base)
        #expect(rootRelative.absoluteString == "https://api.example.com/v2/items?page=2")
        let absolute = try RedirectFollower.resolve("HTTPS://api.example.com/v1/items?page=3", against: base, failingURL: base)
        #expect(absolute.absoluteString == "https://api.example.com/v1/items?page=3")
    }

    @Test func nonHTTPTargetsAreRefused() throws {
        let base = try #require(URL(string: "https://api.example.com/v1/items"))
        for target in ["ftp://api.example.com/items?page=2", "javascript:alert(1)", "", "   "] {
            #expect(throws: HTTPClientError.self, "\(target)") {
                try RedirectFollower.resolve(target, against: base, failingURL: base)
            }
        }
    }

    /// Random bytes (seeded, so a failure replays) never crash the parser, and whatever it finds
    /// came from the input.
    @Test func randomBytesNeverCrash() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(state: seed)
        // Link's own delimiters are over-represented so the parser's branches are actually reached.
        let alphabet = Array(#"<>;,="\ relnxt"#.utf8)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...80, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator) ?? 0 : UInt8.random(in: 0...255, using: &generator)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let header = LinkHeader(fields: [text, text])
            let textBytes = Array(text.utf8)
            for link in header.links {
                let target = Array(link.target.utf8)
                let found =
                    target.isEmpty
                    || (0...max(0, textBytes.count - target.count)).contains { start in
                        textBytes[start...].starts(with: target)
                    }
                #expect(found, "seed \(seed): \(link.target)")
            }
        }
    }
}
