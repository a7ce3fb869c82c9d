import Foundation

/// Puts the credential of a ``CredentialStore`` on every request to the service's own origin, and
/// on a 401 refreshes it once and sends the request again.
///
/// ```swift
/// enum FeedAPI: HTTPClient {
///     case timeline
///     static let credentials = CredentialStore(credential: { await Keychain.token().map(Credential.bearer) },
///                                              refresh: { _ in await Session.renew() })
///     var host: String { "https://api.example.com" }
///     var endpoint: String { "timeline" }
///     var middlewares: [any HTTPMiddleware] {
///         [CallMetricsMiddleware(report: Metrics.record), AuthorizationMiddleware(Self.credentials, host: host), RetryMiddleware()]
///     }
/// }
/// ```
///
/// Under a ``TaskOverride`` (a test's `withOverride` or `withTransport`), it uses the override's
/// store in place of `store`: its substitute, or a copy of its own, so tests running in parallel
/// never share a credential or a refresh.
///
/// The middleware itself holds no state, so creating it per call (as `middlewares` does) costs
/// nothing and changes nothing: the store it names keeps the credential and the refresh.
///
/// - A request is sent again at most once: a second 401 is the caller's answer.
/// - When the refresh fails or logs out, the caller gets the first 401, which the library turns
///   into ``HTTPClientError/unacceptableStatusCode(_:)``.
/// - Credentials go only to `host`'s origin (scheme, host and port). A request whose URL points
///   elsewhere — an absolute URL from a response, a CDN — is sent as it is. Redirects to another
///   origin already lose the `Authorization` header in the redirect follower; this is the second line.
/// - Place it before ``RetryMiddleware``, so each retry carries the credential and a replay after
///   a refresh is itself retried on a transient failure.
public struct AuthorizationMiddleware: HTTPMiddleware {
    /// Where the credential and its refresh state live.
    public let store: CredentialStore
    /// The service's URL (``HTTPClient/host``): its origin is the only one that gets the credential.
    public let host: String

    /// Creates the middleware for `store`, attaching its credential only to requests for `host`'s
    /// origin (pass the service's ``HTTPClient/host``).
    public init(_ store: CredentialStore, host: String) {
        self.store = store
        self.host = host
    }

    /// Sends `request` with the current credential, refreshing and sending again once on a 401.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        guard let url = URL(string: host), url.host != nil else {
            throw .badURL("AuthorizationMiddleware's host '\(host)' is not a URL with a host; pass the service's `host`")
        }
        guard Origin(request.url) == Origin(url) else {
            return try await next(request, context)
        }
        // Under a TaskOverride, the override's own store stands in for the named one.
        let store = context.credentials?.store(for: store) ?? store
        let issued = await store.issue()
        let first = try await next(try issued.credential?.authorize(request) ?? request, Self.context(context, for: issued.credential))
        guard first.statusCode == 401 else { return first }
        guard let fresh = try await store.refresh(rejected: issued, now: context.clock.now) else { return first }
        return try await next(try fresh.authorize(request), Self.context(context, for: fresh))
    }

    /// `context` naming where this credential went, so that the middlewares closer to the transport
    /// treat it as they treat `Authorization`: the redirect follower drops an API-key header on a
    /// redirect to another origin, logs and recordings redact it, and the cache partitions by it
    /// without writing it into a key or a file.
    private static func context(_ context: CallContext, for credential: Credential?) -> CallContext {
        var context = context
        switch credential {
        case .header(let name, _): context.options.credentialHeaders.insert(name.lowercased())
        case .query(let name, _): context.options.credentialQueryItems.insert(name)
        case .bearer, .basic, nil: break
        }
        return context
    }
}

extension EndpointOptions {
    /// Lower-cased names of headers that carry a credential besides ``SensitiveHeaders/credentials``:
    /// the endpoint's ``RedirectPolicy/sensitiveHeaders`` (added before the first middleware runs)
    /// and the header an ``AuthorizationMiddleware`` put a credential in (added on its way down).
    /// One set, one meaning: stripped on a redirect to another origin, partitioning the cache and the
    /// de-duplication (``CredentialPartition``), redacted in recordings. Not public: set by the
    /// library, read by its middlewares and by EndpointRouterTesting.
    package var credentialHeaders: Set<String> {
        get { self[CredentialHeaders.self] }
        set { self[CredentialHeaders.self] = newValue }
    }

    /// Names of the query items an ``AuthorizationMiddleware`` put a credential in (`Credential.query`),
    /// exactly as written. Like ``credentialHeaders``: redacted in logs and recordings, and taken out of
    /// the URL a cache entry is keyed and stored under, into its partition. Not public, for the same
    /// reason.
    package var credentialQueryItems: Set<String> {
        get { self[CredentialQueryItems.self] }
        set { self[CredentialQueryItems.self] = newValue }
    }
}

private enum CredentialHeaders: EndpointOptionKey {
    static let defaultValue: Set<String> = []
}

private enum CredentialQueryItems: EndpointOptionKey {
    static let defaultValue: Set<String> = []
}
