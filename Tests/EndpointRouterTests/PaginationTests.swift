import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `pages(of:)` and `pages(of:next:)` against the in-process server: how far they follow, where they
/// refuse to go, and how they end. Every wait is bounded (short endpoint timeouts, the suite's time
/// limit), so a regression fails instead of hanging.
@Suite("Pagination", .timeLimit(.minutes(1)))
struct PaginationTests {
    /// The page a request asks for: its `page` query item, 1 without one.
    static func pageNumber(_ request: RecordedRequest) -> Int {
        let items = (request.query ?? "").split(separator: "&")
        return items.first { $0.hasPrefix("page=") }.flatMap { Int($0.dropFirst(5)) } ?? 1
    }

    /// A JSON page `[n]`, with a `Link` to `next` when given.
    static func page(_ number: Int, next: String?) -> ScriptedResponse {
        .json("[\(number)]", headers: next.map { [("Link", #"<\#($0)>; rel="next""#)] } ?? [])
    }

    /// A server of `count` pages under `/items`: page 1 links absolutely (from the `Host` it was
    /// asked on, as real APIs do), later pages relatively.
    static func numberedPages(_ count: Int) throws -> TestServer {
        try TestServer { request in
            let number = Self.pageNumber(request)
            guard number < count else { return Self.page(number, next: nil) }
            let host = request.header("Host") ?? "unknown.invalid"
            return Self.page(number, next: number == 1 ? "http://\(host)/items?page=2" : "/items?page=\(number + 1)")
        }
    }

    static func items(_ server: TestServer, middlewares: [any HTTPMiddleware] = []) -> TestEndpoint {
        TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 5, middlewares: middlewares)
    }

    /// Every page until the end or the first error, and whether `next()` after that error was nil.
    static func collect<T>(_ pages: Pages<T>) async -> (pages: [T], error: HTTPClientError?) {
        var iterator = pages.makeAsyncIterator()
        var collected: [T] = []
        do throws(HTTPClientError) {
            while let page = try await iterator.next() { collected.append(page) }
            return (collected, nil)
        } catch {
            do throws(HTTPClientError) {
                let after = try await iterator.next()
                #expect(after == nil, "next() after an error must end the sequence")
            } catch {
                Issue.record("next() after an error threw again: \(error)")
            }
            return (collected, error)
        }
    }

    /// The `URLError` of a `.transport` failure.
    static func urlError(_ error: HTTPClientError?) -> URLError? {
        if case .transport(let urlError) = error { return urlError }
        return nil
    }

    // MARK: Following Link headers

    @Test func followsThreePagesByLinkThenStops() async throws {
        let server = try Self.numberedPages(3)
        defer { server.stop() }
        let outcome = await Self.collect(Self.items(server).pages(of: [Int].self))
        #expect(outcome.pages == [[1], [2], [3]])
        #expect(outcome.error == nil)
        #expect(server.requests.map(\.target) == ["/items", "/items?page=2", "/items?page=3"])
    }

    @Test func forTryAwaitReadsEveryPage() async throws {
        let server = try Self.numberedPages(3)
        defer { server.stop() }
        var all: [Int] = []
        for try await page in Self.items(server).pages(of: [Int].self) {
            all += page
        }
        #expect(all == [1, 2, 3])
    }

    @Test func nothingIsSentBeforeNextAndEachIterationStartsAgain() async throws {
        let server = try Self.numberedPages(2)
        defer { server.stop() }
        let pages = Self.items(server).pages(of: [Int].self)
        #expect(server.requests.isEmpty)
        #expect(await Self.collect(pages).pages == [[1], [2]])
        #expect(await Self.collect(pages).pages == [[1], [2]])
        #expect(server.requests.map(\.target) == ["/items", "/items?page=2", "/items", "/items?page=2"])
    }

    @Test func maxPagesEndsNormallyAfterThatMany() async throws {
        let server = try Self.numberedPages(1000)
        defer { server.stop() }
        let outcome = await Self.collect(Self.items(server).pages(of: [Int].self, maxPages: 2))
        #expect(outcome.pages == [[1], [2]])
        #expect(outcome.error == nil)
        #expect(server.requests.count == 2)

        let none = await Self.collect(Self.items(server).pages(of: [Int].self, maxPages: 0))
        #expect(none.pages.isEmpty && none.error == nil)
        #expect(server.requests.count == 2)
    }

    @Test func relativeLinkResolvesAgainstTheURLAfterRedirects() async throws {
        let server = try TestServer { request in
            switch request.path {
            case "/items": .redirect(status: 302, location: "/v2/items")
            case "/v2/items" where Self.pageNumber(request) == 1: Self.page(1, next: "items?page=2")
            default: Self.page(Self.pageNumber(request), next: nil)
            }
        }
        defer { server.stop() }
        let outcome = await Self.collect(Self.items(server).pages(of: [Int].self))
        #expect(outcome.pages == [[1], [2]])
        #expect(server.requests.map(\.target) == ["/items", "/v2/items", "/v2/items?page=2"])
    }

    // MARK: Where a next link is not followed

    @Test func nextLinkToAnotherOriginThrowsAndSendsNothingThere() async throws {
        let other = try TestServer(response: .json("[99]"))
        defer { other.stop() }
        let otherBase = other.baseURL
        let server = try TestServer { _ in Self.page(1, next: "\(otherBase)/secret/items?page=2&token=s3cret") }
        defer { server.stop() }
        let endpoint = TestEndpoint(host: server.baseURL, endpoint: "items", headers: ["Authorization": "Bearer t0k"], timeout: 5)

        let outcome = await Self.collect(endpoint.pages(of: [Int].self))
        #expect(outcome.pages == [[1]])
        let error = try #require(Self.urlError(outcome.error))
        #expect(error.code == .badServerResponse)
        let message = error.localizedDescription
        #expect(message.contains("another origin (http://127.0.0.1:\(other.port))"))
        #expect(message.contains("pages(of:maxPages:next:)"))
        #expect(!message.contains("s3cret") && !message.contains("/secret"))
        // Give a wrongly sent request time to arrive before asserting that none did.
        try await Task.sleep(for: .milliseconds(100))
        #expect(other.requests.isEmpty)
        #expect(other.connectionCount == 0)
        #expect(server.requests.count == 1)
    }

    @Test func nextLinkFromHTTPSToHTTPIsRefused() async throws {
        let sent = Counter()
        let transport = ClosureTransport { request in
            sent.increment()
            return IncomingResponse(
                statusCode: 200,
                headers: ["Content-Type": "application/json", "Link": #"<http://api.example.com/items?page=2>; rel="next""#],
                body: Data("[1]".utf8), url: request.url)
        }
        let endpoint = TestEndpoint(host: "https://api.example.com", endpoint: "items", timeout: 5, transport: transport)
        let outcome = await Self.collect(endpoint.pages(of: [Int].self))
        #expect(outcome.pages == [[1]])
        #expect(Self.urlError(outcome.error)?.code == .secureConnectionFailed)
        #expect(Self.urlError(outcome.error)?.localizedDescription.contains("unencrypted") == true)
        #expect(sent.count == 1)
    }

    @Test func aLoopIsDetected() async throws {
        let server = try TestServer { request in
            Self.pageNumber(request) == 1 ? Self.page(1, next: "/items?page=2") : Self.page(2, next: "/items")
        }
        defer { server.stop() }
        let outcome = await Self.collect(Self.items(server).pages(of: [Int].self))
        #expect(outcome.pages == [[1], [2]])
        let error = try #require(Self.urlError(outcome.error))
        #expect(error.code == .httpTooManyRedirects)
        #expect(error.localizedDescription.contains("already fetched"))
        #expect(server.requests.count == 2)
    }

    // MARK: Each page is a whole call

    @Test func theCredentialGoesWithEveryPageOfTheOrigin() async throws {
        let server = try Self.numberedPages(3)
        defer { server.stop() }
        let store = CredentialStore(credential: { .bearer("t0k") }, refresh: { _ in .loggedOut })
        let endpoint = Self.items(server, middlewares: [AuthorizationMiddleware(store, host: server.baseURL)])
        let outcome = await Self.collect(endpoint.pages(of: [Int].self))
        #expect(outcome.pages.count == 3)
        #expect(server.requests.map { $0.header("Authorization") } == Array(repeating: "Bearer t0k", count: 3))
    }

    @Test func aServerErrorOnPageTwoThrowsAfterPageOne() async throws {
        let server = try TestServer { request in
            Self.pageNumber(request) == 1 ? Self.page(1, next: "/items?page=2") : .json(#"{"error":"boom"}"#, status: 500)
        }
        defer { server.stop() }
        let outcome = await Self.collect(Self.items(server).pages(of: [Int].self))
        #expect(outcome.pages == [[1]])
        guard case .unacceptableStatusCode(let response) = outcome.error else {
            Issue.record("expected .unacceptableStatusCode, got \(String(describing: outcome.error))")
            return
        }
        #expect(response.statusCode == 500)
        #expect(server.requests.count == 2)
    }

    // MARK: Cancellation

    @Test func cancellingMidwayThrowsCancelled() async throws {
        let server = try TestServer { request in
            Self.pageNumber(request) == 1 ? Self.page(1, next: "/items?page=2") : ScriptedResponse(behavior: .hang)
        }
        defer { server.stop() }
        let pages = TestEndpoint(host: server.baseURL, endpoint: "items", timeout: 20).pages(of: [Int].self)
        let task = Task { await Self.collect(pages) }
        #expect(await server.received(2))
        task.cancel()
        let outcome = try #require(await boundedValue(of: task, within: 5))
        #expect(outcome.pages == [[1]])
        #expect(outcome.error == .cancelled)
    }

    @Test func aCancelledTaskSendsNothing() async throws {
        let server = try Self.numberedPages(3)
        defer { server.stop() }
        let pages = Self.items(server).pages(of: [Int].self)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Self.collect(pages)
        }
        let outcome = try #require(await boundedValue(of: task, within: 5))
        #expect(outcome.pages.isEmpty)
        #expect(outcome.error == .cancelled)
        #expect(server.requests.isEmpty)
    }

    // MARK: Pages named in the body

    struct FeedPage: Decodable, Equatable {
        let items: [Int]
        let next: String?
    }

    /// An endpoint that is `Sendable`, as `pages(of:next:)` asks: every property a plain value.
    struct FeedEndpoint: HTTPClient, Sendable {
        var host: String
        var cursor: String?
        var transport: any HTTPTransport = DefaultTransport.shared
        var endpoint: String { "feed" }
        var parameters: [String: Any]? { cursor.map { ["cursor": $0] } }
        var timeout: TimeInterval? { 5 }
    }

    /// The feed's pages by cursor: none, then `c2`, then `c3`, the last.
    static func feedPage(cursor: String?) -> String {
        switch cursor {
        case nil: #"{"items":[1,2],"next":"c2"}"#
        case "c2": #"{"items":[3],"next":"c3"}"#
        default: #"{"items":[4],"next":null}"#
        }
    }

    @Test func theClosureFollowsACursor() async throws {
        let server = try TestServer { request in
            .json(Self.feedPage(cursor: request.query.map { String($0.dropFirst("cursor=".count)) }))
        }
        defer { server.stop() }
        let pages = FeedEndpoint(host: server.baseURL).pages(of: FeedPage.self) { page in
            page.next.map { FeedEndpoint(host: server.baseURL, cursor: $0) }
        }
        let outcome = await Self.collect(pages)
        #expect(outcome.pages.map(\.items) == [[1, 2], [3], [4]])
        #expect(outcome.error == nil)
        #expect(server.requests.map(\.target) == ["/feed", "/feed?cursor=c2", "/feed?cursor=c3"])
    }

    @Test func theClosureIsNotAskedPastMaxPagesAndARepeatedRequestIsALoop() async throws {
        let asked = Counter()
        let server = try TestServer { _ in .json(#"{"items":[7],"next":"same"}"#) }
        defer { server.stop() }
        let base = server.baseURL
        let bounded = FeedEndpoint(host: base).pages(of: FeedPage.self, maxPages: 1) { page in
            asked.increment()
            return FeedEndpoint(host: base, cursor: page.next)
        }
        #expect(await Self.collect(bounded).pages.count == 1)
        let looping = FeedEndpoint(host: base).pages(of: FeedPage.self) { page in
            asked.increment()
            return FeedEndpoint(host: base, cursor: page.next)
        }
        let outcome = await Self.collect(looping)
        #expect(outcome.pages.count == 2)
        #expect(Self.urlError(outcome.error)?.code == .httpTooManyRedirects)
        #expect(server.requests.map(\.target) == ["/feed", "/feed", "/feed?cursor=same"])
        #expect(asked.count == 2)
    }

    @Test func theTransportOverrideInForceWhenMadeServesEveryPage() async throws {
        let sent = Counter()
        let stub = ClosureTransport { request in
            sent.increment()
            let cursor = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value
            return IncomingResponse(
                statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(Self.feedPage(cursor: cursor).utf8),
                url: request.url)
        }
        // The endpoint's own transport would fail every page: only the override may answer.
        let unreachable = ClosureTransport { request throws(HTTPClientError) in
            throw HTTPClientError.transport(.cannotConnectToHost, "not the override", url: request.url)
        }
        let pages = TaskOverride.$current.withValue(TaskOverride(transport: stub)) {
            FeedEndpoint(host: "https://feed.example.com", transport: unreachable).pages(of: FeedPage.self) { page in
                page.next.map { FeedEndpoint(host: "https://feed.example.com", cursor: $0, transport: unreachable) }
            }
        }
        // Iterated outside the scope, in another task: the override still applies.
        let outcome = await Task.detached { await Self.collect(pages) }.value
        #expect(outcome.pages.map(\.items) == [[1, 2], [3], [4]])
        #expect(outcome.error == nil)
        #expect(sent.count == 3)
    }
}
