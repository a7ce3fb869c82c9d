import Foundation

/// The pages of a paginated endpoint, fetched one at a time as they are asked for: what
/// ``HTTPClient/pages(of:maxPages:)`` and ``HTTPClient/pages(of:maxPages:next:)`` return.
///
/// ```swift
/// var repos: [Repo] = []
/// for try await page in GitHubAPI.repos(org: "swiftlang").pages(of: [Repo].self) {
///     repos += page
/// }
/// ```
///
/// Each page is one whole call of the endpoint: its middlewares (authorization, retries, cache),
/// its redirects and its ``HTTPClient/timeout`` apply to every page on its own, so a long listing
/// is not cut short by a deadline meant for one request.
///
/// - Nothing is sent until the first `next()`. The sequence is a description, not a running
///   transfer: every `makeAsyncIterator()` (every `for` loop) starts again from the first page.
/// - It ends normally after the last page (no next page), or after `maxPages` pages even if the
///   server announces more.
/// - A failed page throws its ``HTTPClientError``, and the iteration is over: a later `next()`
///   answers `nil`. Cancelling the iterating task throws ``HTTPClientError/cancelled``.
/// - Asking for a page already fetched ends with a `.transport` error (`URLError.httpTooManyRedirects`):
///   a server whose pages point back to earlier ones would otherwise be read until `maxPages`.
///
/// Every error is an ``HTTPClientError``: the iterator's `next()` says so in its type, and so does
/// `for try await` where the standard library has typed `next(isolation:)` (macOS 15, iOS 18 and
/// later, Linux); before that the loop's error is `any Error`, still always an ``HTTPClientError``.
///
/// The sequence is `Sendable` whatever `Page` is: it holds the built request and the endpoint's
/// policies, never a page, so it can be made on one actor and iterated on another.
public struct Pages<Page: Decodable & SendableMetatype>: AsyncSequence, Sendable {
    /// Each element is one decoded page.
    public typealias Element = Page
    /// A page fails as a single request of the endpoint fails.
    public typealias Failure = HTTPClientError

    /// How the call for the page after a given one is found.
    enum Following: Sendable {
        /// The `rel="next"` link of the page's `Link` header fields, on the endpoint's origin.
        case linkHeader
        /// The endpoint a closure derives from the decoded page; `nil` when there is none.
        case derived(@Sendable (Page) -> Result<Call, HTTPClientError>?)
    }

    /// The call for the first page, or why it cannot be built (reported by the first `next()`).
    let first: Result<Call, HTTPClientError>
    let maxPages: Int
    let following: Following

    /// An iterator that starts at the first page.
    ///
    /// <!-- snippet: prelude=doc,doc-function -->
    /// ```swift
    /// var iterator = FeedAPI.items(cursor: nil).pages(of: ItemPage.self).makeAsyncIterator()
    /// let firstPage = try await iterator.next()
    /// print(firstPage?.items.count ?? 0)
    /// ```
    public func makeAsyncIterator() -> Iterator {
        Iterator(upcoming: first, maxPages: maxPages, following: following)
    }

    /// Fetches the pages one by one; each `next()` sends one call of the endpoint.
    ///
    /// <!-- snippet: prelude=doc,doc-function -->
    /// ```swift
    /// var iterator = GitHubAPI.repos(org: "swiftlang").pages(of: [Repo].self).makeAsyncIterator()
    /// while let page = try await iterator.next() {
    ///     print(page.count)
    /// }
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        /// Each element is one decoded page.
        public typealias Element = Page
        /// A page fails as a single request of the endpoint fails.
        public typealias Failure = HTTPClientError

        /// The call for the next page; `nil` once the sequence has ended.
        private var upcoming: Result<Call, HTTPClientError>?
        private let maxPages: Int
        private let following: Following
        private var delivered = 0
        /// Every request sent so far, to notice a next page that is an earlier one.
        private var sent: Set<SentRequest> = []

        init(upcoming: Result<Call, HTTPClientError>, maxPages: Int, following: Following) {
            self.upcoming = upcoming
            self.maxPages = maxPages
            self.following = following
        }

        /// The next page, or `nil` after the last one, after `maxPages` pages, or after an error.
        ///
        /// <!-- snippet: prelude=doc,doc-function -->
        /// ```swift
        /// var iterator = FeedAPI.items(cursor: nil).pages(of: ItemPage.self).makeAsyncIterator()
        /// let firstPage = try await iterator.next()
        /// print(firstPage?.items.count ?? 0)
        /// ```
        public mutating func next() async throws(HTTPClientError) -> Page? {
            try await next(isolation: nil)
        }

        /// The next page, with the iterator kept on the caller's actor (what `for try await` uses):
        /// the page is decoded off that actor and handed back to it.
        ///
        /// ```swift
        /// @MainActor func loadAll() async throws {
        ///     for try await page in FeedAPI.items(cursor: nil).pages(of: ItemPage.self) { show(page) }
        /// }
        /// ```
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPClientError) -> Page? {
            guard let upcoming else { return nil }
            // Whatever happens below ends the iteration unless a page arrives and leads on.
            self.upcoming = nil
            guard delivered < maxPages else { return nil }
            if Task.isCancelled { throw .cancelled }
            let call = try upcoming.get()
            guard sent.insert(SentRequest(call.request)).inserted else {
                throw .transport(
                    .httpTooManyRedirects,
                    "the next page (\(RedactedURL.text(of: call.request.url))) is one already fetched: the pages loop, "
                        + "so paging stopped after \(delivered) pages",
                    url: call.request.url)
            }
            let response = try await call.response(Page.self, uploadProgress: nil).get()
            delivered += 1
            // The last page allowed: its link is neither read nor reported, and `next` not asked.
            guard delivered < maxPages else { return response.value }
            switch following {
            case .linkHeader: self.upcoming = Self.linked(after: response, of: call)
            case .derived(let derive): self.upcoming = derive(response.value)
            }
            return response.value
        }

        /// The call for the page the `rel="next"` link of `response` names, `nil` without one, or
        /// why that link is not followed.
        static func linked(after response: EndpointResponse<Page>, of call: Call) -> Result<Call, HTTPClientError>? {
            let current = call.request.url
            guard let target = LinkHeader(response.headers).target(rel: "next", context: response.url ?? current) else { return nil }
            // RFC 8288 resolves a relative target against the URL that answered, after redirects.
            return Result { () throws(HTTPClientError) in
                let url = try RedirectFollower.resolve(
                    target, against: response.url ?? current, failingURL: current, subject: "the Link header's next page is")
                if current.scheme?.lowercased() == "https", url.scheme == "http" {
                    throw .transport(
                        .secureConnectionFailed,
                        "the Link header's next page is an http URL on \(Self.describe(Origin(current))): it is not followed, "
                            + "because it would send the endpoint's request unencrypted",
                        url: current)
                }
                // The call carries the endpoint's credentials (headers, middlewares): they stay with
                // its origin. Only the origin is named, since a path or query may hold a secret.
                guard Origin(url) == Origin(current) else {
                    throw .transport(
                        .badServerResponse,
                        "the Link header's next page is on another origin (\(Self.describe(Origin(url)))) than the endpoint "
                            + "(\(Self.describe(Origin(current)))); it is not followed, so the endpoint's credentials stay "
                            + "with its origin. To page across origins, derive each next endpoint with pages(of:maxPages:next:)",
                        url: current)
                }
                // The same call for the page at `url`: same method, headers, body and policies.
                var next = call
                next.request.url = url
                return next
            }
        }

        /// `scheme://host:port`, the port always shown so two origins never read alike.
        static func describe(_ origin: Origin) -> String {
            let host = origin.host.contains(":") ? "[\(origin.host)]" : origin.host
            return "\(origin.scheme)://\(RequestChecks.printable(host)):\(origin.port)"
        }
    }
}

/// What makes two page requests the same: method, body, origin (scheme and host in any casing,
/// default port or not), path and query; the fragment never reaches the server.
private struct SentRequest: Hashable {
    let method: RequestMethod
    let origin: Origin
    let pathAndQuery: String
    let body: OutgoingRequest.Body?

    init(_ request: OutgoingRequest) {
        method = request.method
        origin = Origin(request.url)
        body = request.body
        if let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            pathAndQuery = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        } else {
            pathAndQuery = request.url.absoluteString
        }
    }
}
