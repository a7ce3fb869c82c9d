import Foundation

/// An HTTP cache for GET requests, in memory and optionally on disk, that works with every
/// transport (URLSession's `URLCache` is unreliable on Linux, and the default transport turns it off).
///
/// ```swift
/// enum ImagesAPI: HTTPClient {
///     case image(id: String)
///     static let cache = ResponseCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("images"))
///     var host: String { "https://images.example.com" }
///     var endpoint: String { if case .image(let id) = self { "images/\(segment: id)" } else { "" } }
///     var middlewares: [any HTTPMiddleware] { [CachingMiddleware(cache: Self.cache)] }
/// }
/// ```
///
/// What it follows (a private cache, for one user of one client):
/// - Only `GET` responses with status 200 whose body is in memory (not a download to a file) are
///   stored, and only when they can be reused: with a freshness (`Cache-Control: max-age`, else
///   `Expires` minus `Date`) or a validator (`ETag`, `Last-Modified`).
/// - `no-store` (in the request or the response) is never stored. `no-cache` is stored but
///   revalidated before every use. `private` is stored (this is a private cache); `s-maxage` is for
///   shared caches and ignored.
/// - Answers are partitioned by credential: a request carrying `Authorization`,
///   `Proxy-Authorization`, `Cookie`, the header or query item an ``AuthorizationMiddleware`` put its
///   credential in (an API key; a query item is also taken out of the stored URL) or a header the endpoint declared in ``RedirectPolicy/sensitiveHeaders`` is answered
///   only from what was stored for the same values of those headers, and a request without them
///   never from what a credentialed one stored. The partition is an HMAC-SHA256 of the values under a
///   random key each ``ResponseCache`` holds in memory only: no credential is kept in a key or a file
///   name, and on disk such entries serve only the object that wrote them (after a relaunch, the
///   request goes to the server). Partitioning rather than refusing to store keeps the cache useful
///   for signed-in users without ever crossing users; revalidation stays within the partition too.
/// - A request carrying `Authorization` is still stored only when the response says `public`, as
///   before partitioning: such answers are often personal, and without `public` they are not stored
///   at all, in memory or on disk.
/// - `Set-Cookie` is never stored: a response answered from the cache has no cookie.
/// - A fresh response is answered without asking the server. A stale one with a validator is
///   revalidated with `If-None-Match` / `If-Modified-Since`; a `304 Not Modified` is answered as the
///   stored 200 and body, with the stored headers updated by the 304's.
/// - `Vary` is honoured: a stored response is used only for a request with the same values of the
///   headers it lists; `Vary: *` is never stored. One response is kept per URL (and credential
///   partition). A credential header `Vary` lists (`Vary: Cookie, Authorization, X-API-Key`) is
///   matched through the credential partition: its value is never stored, in memory or on disk.
/// - A request that brings its own `If-None-Match`, `If-Modified-Since` or `Range` is passed through
///   untouched: the caller is handling validation itself.
///
/// Each endpoint chooses with ``EndpointOptions/cachePolicy``. The responses live in a
/// ``ResponseCache``, by default the process-wide ``ResponseCache/shared`` (memory only); the
/// middleware itself holds nothing, so creating it per call in a computed `middlewares` is fine.
///
/// Placement: after the middlewares that set headers (``AuthorizationMiddleware``, so the cache sees
/// the credential it partitions by — placed before it, the cache would see every user's request
/// as the same anonymous one), and before ``DeduplicationMiddleware``, so hits never wait for an exchange.
public struct CachingMiddleware: HTTPMiddleware {
    /// Where responses are stored.
    public let cache: ResponseCache

    /// Creates a middleware storing in `cache`.
    public init(cache: ResponseCache = .shared) {
        self.cache = cache
    }

    /// Answers from the cache, revalidates, or sends and stores, as the endpoint's policy and the
    /// response headers say.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        let policy = context.options.cachePolicy
        guard request.method == .get, policy != .disabled, !context.isStreaming,
            !["If-None-Match", "If-Modified-Since", "Range"].contains(where: request.headers.contains)
        else {
            return try await next(request, context)
        }
        let key = cache.key(
            for: request, credentialHeaders: context.options.credentialHeaders,
            credentialQueryItems: context.options.credentialQueryItems)
        let stored = policy == .reloadIgnoringCache ? nil : cache.entry(for: key).flatMap { $0.matches(request) ? $0 : nil }
        let now = Self.now(cache, context)
        if let stored, policy == .returnCacheElseLoad || (!CacheControl(request.headers).noCache && stored.isFresh(at: now)) {
            return stored.response(at: now)
        }
        guard let stored, stored.hasValidators else {
            return store(try await next(request, context), for: request, key: key, context: context)
        }
        var conditional = request
        if let etag = stored.headers["ETag"] { conditional.headers["If-None-Match"] = etag }
        if let modified = stored.headers["Last-Modified"] { conditional.headers["If-Modified-Since"] = modified }
        let response = try await next(conditional, context)
        guard response.statusCode == 304 else {
            return store(response, for: request, key: key, context: context)
        }
        let refreshed = Self.refreshed(stored, by: response, at: Self.now(cache, context))
        if CacheControl(refreshed.headers).noStore {
            cache.remove(key)
        } else {
            cache.store(refreshed)
        }
        return refreshed.response(at: Self.now(cache, context))
    }

    /// The date freshness and age are measured at: the call's clock when a test made it virtual,
    /// else the cache's own (the system's, or the one its tests give it).
    private static func now(_ cache: ResponseCache, _ context: CallContext) -> Date {
        context.clock is SystemCallClock ? cache.now() : context.clock.date
    }

    /// Stores `response` when the rules allow; returns it unchanged either way. The stored URL loses
    /// the query items an ``AuthorizationMiddleware`` put a credential in, as the key did.
    private func store(_ response: IncomingResponse, for request: OutgoingRequest, key: String, context: CallContext) -> IncomingResponse {
        let queryCredentials = context.options.credentialQueryItems
        if var entry = Self.storable(
            response, for: request, key: key, credentialHeaders: context.options.credentialHeaders, at: Self.now(cache, context))
        {
            entry.url = entry.url.map { CredentialPartition.splitCredentials(of: $0, queryItems: queryCredentials).url }
            cache.store(entry)
        } else if CacheControl(response.headers).noStore || CacheControl(request.headers).noStore {
            cache.remove(key)
        }
        return response
    }

    /// The entry to store for `response`, or `nil` when the rules in the type's description forbid it.
    ///
    /// A credential header that `Vary` names (`Vary: Cookie`, as Django and Rails send by default;
    /// `Authorization`; an API key's header, named in `credentialHeaders`) is left out of the entry's
    /// varying values: its value would be a secret in memory and in the file on disk, and `key`
    /// already holds the request's credential partition, so only a request with the same credential
    /// values finds the entry at all.
    static func storable(
        _ response: IncomingResponse, for request: OutgoingRequest, key: String, credentialHeaders: Set<String>, at now: Date
    ) -> CachedResponse? {
        let control = CacheControl(response.headers)
        guard response.statusCode == 200, response.bodyFile == nil, !control.noStore,
            !CacheControl(request.headers).noStore,
            !request.headers.contains("Authorization") || control.isPublic
        else { return nil }
        let varyNames = response.headers.values(for: "Vary")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        guard !varyNames.contains("*") else { return nil }
        var headers = response.headers
        headers.remove(name: "Set-Cookie")
        headers.remove(name: "Set-Cookie2")
        var entry = CachedResponse(
            key: key, statusCode: response.statusCode, headerNames: [], headerValues: [],
            url: response.url, receivedAt: now,
            initialAge: CachedResponse.initialAge(of: response.headers),
            varying: Dictionary(
                varyNames.filter { !SensitiveHeaders.contains($0, extra: credentialHeaders) }.map { ($0, request.headers[$0]) },
                uniquingKeysWith: { first, _ in first }),
            body: response.body)
        entry.headers = headers
        guard entry.freshnessLifetime > 0 || entry.hasValidators else { return nil }
        return entry
    }

    /// `stored` after a 304: its headers replaced by the 304's of the same name, except the ones
    /// that describe the 304's own (empty) body and cookies, and its age restarted.
    static func refreshed(_ stored: CachedResponse, by notModified: IncomingResponse, at now: Date) -> CachedResponse {
        let kept: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "set-cookie", "set-cookie2"]
        var entry = stored
        var headers = stored.headers
        var replaced: Set<String> = []
        for field in notModified.headers where !kept.contains(field.name.lowercased()) {
            let name = field.name.lowercased()
            if replaced.insert(name).inserted { headers.remove(name: field.name) }
            headers.add(name: field.name, value: field.value)
        }
        entry.headers = headers
        entry.receivedAt = now
        entry.initialAge = CachedResponse.initialAge(of: notModified.headers)
        return entry
    }
}

private enum CachePolicyKey: EndpointOptionKey {
    static let defaultValue = CachePolicy.useProtocol
}

extension EndpointOptions {
    /// How ``CachingMiddleware`` treats this endpoint's requests; ``CachePolicy/useProtocol`` by default.
    public var cachePolicy: CachePolicy {
        get { self[CachePolicyKey.self] }
        set { self[CachePolicyKey.self] = newValue }
    }
}
