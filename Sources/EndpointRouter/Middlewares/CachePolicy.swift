/// How ``CachingMiddleware`` treats one endpoint's requests, set in ``EndpointOptions/cachePolicy``.
///
/// ```swift
/// var options: EndpointOptions {
///     var options = EndpointOptions()
///     options.cachePolicy = self == .refresh ? .reloadIgnoringCache : .useProtocol
///     return options
/// }
/// ```
public enum CachePolicy: Sendable, Hashable {
    /// What the server's headers say: a fresh stored response is answered without a request, a
    /// stale one with validators is revalidated, anything else goes to the server. The default.
    case useProtocol
    /// Always ask the server (unconditionally) and store what it answers, if storable: a "pull to
    /// refresh".
    case reloadIgnoringCache
    /// Answer with a stored response however old it is, without asking the server; go to the
    /// server only when nothing is stored: for offline-first screens that accept stale data.
    case returnCacheElseLoad
    /// Neither read nor write the cache for this endpoint.
    case disabled
}
