/// How the library follows redirects, the same for every transport.
///
/// 303 turns into GET without a body (HEAD stays HEAD); 301 and 302 turn a POST into GET without a
/// body and keep every other method and its body; 307 and 308 keep method and body. When the body is
/// dropped, so are the headers describing it (`Content-Type`, `Content-Encoding`,
/// `Content-Language`, `Content-Location`, `Digest`). When the origin (scheme, host, port) changes,
/// `Authorization`, `Proxy-Authorization`, `Cookie` and the ``sensitiveHeaders`` are removed. A
/// redirect from https to http is refused.
///
/// ```swift
/// var redirectPolicy: RedirectPolicy { RedirectPolicy(maximumHops: 3, sensitiveHeaders: ["X-API-Key"]) }
/// ```
public struct RedirectPolicy: Sendable, Hashable {
    /// Hops followed before failing with `URLError.httpTooManyRedirects`; `0` returns every redirect
    /// as a response.
    public var maximumHops: Int
    /// Headers, besides the credential headers, that must never reach another origin (any casing).
    public var sensitiveHeaders: Set<String>

    /// Creates a policy: 10 hops and no extra sensitive headers by default.
    public init(maximumHops: Int = 10, sensitiveHeaders: Set<String> = []) {
        self.maximumHops = max(0, maximumHops)
        self.sensitiveHeaders = Set(sensitiveHeaders.map { $0.lowercased() })
    }
}
