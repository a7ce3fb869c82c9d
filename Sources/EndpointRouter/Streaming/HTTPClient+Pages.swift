extension HTTPClient {
    /// Every page of a listing whose responses name the next page in an RFC 8288 `Link` header, as
    /// GitHub's API does: `Link: <https://api.github.com/organizations/1/repos?page=2>; rel="next"`.
    ///
    /// ```swift
    /// var repos: [Repo] = []
    /// for try await page in GitHubAPI.repos(org: "swiftlang").pages(of: [Repo].self) {
    ///     repos += page
    /// }
    /// ```
    ///
    /// The endpoint's request is sent first; each next page is the same request (method, headers,
    /// body) for the `rel="next"` URL, resolved against the URL that answered. The sequence ends
    /// after a page without such a link. See ``Pages`` for how it fails and ends.
    ///
    /// A next link is followed only on the endpoint's own origin (scheme, host and port), because
    /// the request carries the endpoint's credentials: a link to another origin, or from https to
    /// http, ends the sequence with a `.transport` error and nothing is sent there. For a listing
    /// that moves to another host, derive each next endpoint with ``pages(of:maxPages:next:)``.
    ///
    /// - Parameters:
    ///   - type: what each page's body decodes into, as in ``request(type:at:timeout:headers:middlewares:)``.
    ///   - maxPages: the most pages fetched, 100 unless given: after that many the sequence ends
    ///     normally, without an error, even if the last page names a next one. It guards against a
    ///     server that never stops announcing pages; 0 or less fetches nothing.
    public func pages<T: Decodable & SendableMetatype>(of type: T.Type, maxPages: Int = 100) -> Pages<T> {
        Pages(first: firstPageCall(), maxPages: maxPages, following: .linkHeader)
    }

    /// The call for the first page, built now, on the caller's side, because the endpoint value
    /// need not be `Sendable`. Cancellation is checked when a page is asked for, not here: the
    /// sequence may be iterated by another task than the one that made it.
    fileprivate func firstPageCall() -> Result<Call, HTTPClientError> {
        Result { () throws(HTTPClientError) in try Call(self, CallOverrides()) }
    }
}

extension HTTPClient where Self: Sendable {
    /// Every page of a listing whose next page is named in the body — a cursor, an offset, a page
    /// number — where `next` turns the last decoded page into the endpoint of the next one.
    ///
    /// ```swift
    /// var items: [Item] = []
    /// for try await page in FeedAPI.items(cursor: nil).pages(of: ItemPage.self, next: { page in
    ///     page.nextCursor.map { FeedAPI.items(cursor: $0) }
    /// }) {
    ///     items += page.items
    /// }
    /// ```
    ///
    /// `next` answering `nil` ends the sequence. Each endpoint it returns is a call of its own, with
    /// its own host, headers and middlewares: unlike ``pages(of:maxPages:)``, nothing limits the
    /// next page to the first one's origin, since the endpoint, not the server, chooses where it goes.
    /// An endpoint whose request (method, URL, body) was already sent ends the sequence with a
    /// `.transport` error rather than reading the same pages again. See ``Pages`` for the rest.
    ///
    /// The ``TaskOverride`` bound (`withOverride` or `withTransport` in tests) is read here, when
    /// the sequence is made, and every page uses it, even pages fetched after that scope has ended
    /// or from another task.
    ///
    /// - Parameters:
    ///   - type: what each page's body decodes into.
    ///   - maxPages: the most pages fetched, 100 unless given: after that many the sequence ends
    ///     normally, without an error, and `next` is not asked again. 0 or less fetches nothing.
    ///   - next: the endpoint of the page after the given one, or `nil` after the last page.
    public func pages<T: Decodable & SendableMetatype>(
        of type: T.Type, maxPages: Int = 100, next: @escaping @Sendable (T) -> Self?
    ) -> Pages<T> {
        // Building a call reads the task-local override; the later pages are built while iterating,
        // possibly outside the caller's scope, so the value in force now is bound again for each.
        let override = TaskOverride.current
        let derive: @Sendable (T) -> Result<Call, HTTPClientError>? = { page in
            guard let endpoint = next(page) else { return nil }
            return TaskOverride.$current.withValue(override) { Call.starting(endpoint, CallOverrides()) }
        }
        return Pages(first: firstPageCall(), maxPages: maxPages, following: .derived(derive))
    }
}
