import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The transport's settings, apart from the transport so that each file stays short enough to read whole.
extension URLSessionTransport {
    /// Settings of a transport: the number of connections per host, or an app's own
    /// `URLSessionConfiguration` with the library's rules laid over it.
    ///
    /// ```swift
    /// let settings = URLSessionConfiguration.default
    /// settings.httpAdditionalHeaders = ["X-App-Version": "2.1"]
    /// settings.allowsCellularAccess = false
    /// let transport = URLSessionTransport(configuration: .init(sessionConfiguration: settings))
    /// ```
    ///
    /// What the library overrides in the app's configuration, because it owns these policies for
    /// every transport alike:
    /// - Redirects: URLSession never follows one; the library does, with its rules
    ///   (``RedirectPolicy``, credentials stripped on the way to another origin).
    /// - Cookies: `httpCookieStorage` is removed, `httpShouldSetCookies` off and
    ///   `httpCookieAcceptPolicy` `.never`, unless ``usesCookieStorage`` is set.
    /// - Caching: `urlCache` is removed and `requestCachePolicy` is `.reloadIgnoringLocalCacheData`,
    ///   unless ``usesURLCache`` is set (``CachingMiddleware`` is the library's own cache).
    /// - Time: `timeoutIntervalForRequest` and `timeoutIntervalForResource` give way to the call's
    ///   deadline (the endpoint's `timeout`): each request carries an idle timeout just beyond it, and
    ///   the resource timeout is lifted, so URLSession never ends a call before the library does.
    ///   `waitsForConnectivity` therefore waits until the deadline at most.
    /// - `httpMaximumConnectionsPerHost` is ``maximumConnectionsPerHost``, which starts from it.
    /// - `httpAdditionalHeaders` are added by the transport to each request that lacks the field,
    ///   as URLSession would, so the header checks apply to them (a CR or LF is `.invalidHeader`),
    ///   and on Linux and Apple systems alike. Credential headers among them (`Authorization`,
    ///   `Proxy-Authorization`, `Cookie`) are left out: the transport cannot tell a redirect to
    ///   another origin, where they must not go; give credentials to an ``AuthorizationMiddleware``.
    ///   `User-Agent` and `Accept` are in every request the library builds, so those two come from
    ///   the endpoint's `headers`, not from here.
    ///
    /// Everything else applies as URLSession applies it: proxies (`connectionProxyDictionary`), the
    /// minimum TLS version, cellular, expensive and constrained network access, pipelining, the
    /// network service type. On Linux, corelibs lacks several of these (`waitsForConnectivity` is
    /// read-only there) and ignores most of the others (proxies come from the
    /// `http_proxy`/`https_proxy` environment variables there). Measured there: the cookie storage,
    /// when asked for, stores and sends cookies; the URL cache, when asked for, answered nothing
    /// (every request reached the server).
    public struct Configuration: Sendable {
        /// Connections opened at most to one host.
        public var maximumConnectionsPerHost: Int
        /// Whether the app's cookie storage is used: URLSession then stores the cookies responses
        /// set and sends them back by the cookie rules, unseen by middlewares. Off by default:
        /// cookies are headers the caller sets.
        public var usesCookieStorage: Bool
        /// Whether the app's `urlCache` and `requestCachePolicy` are used: URLSession may then answer
        /// from its cache without a request reaching the server. Off by default.
        public var usesURLCache: Bool
        private var base: SessionSettings

        /// The configuration the transport's sessions start from (a copy: changing it afterwards
        /// changes nothing); `.ephemeral` unless the app gave its own.
        public var sessionConfiguration: URLSessionConfiguration {
            get { base.copy() }
            set { base = SessionSettings(newValue) }
        }

        /// Creates settings: 6 connections per host by default.
        public init(maximumConnectionsPerHost: Int = 6) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            usesCookieStorage = false
            usesURLCache = false
            base = SessionSettings(.ephemeral)
        }

        /// Settings starting from the app's own `sessionConfiguration` (copied), with the library's
        /// rules laid over it as described on ``Configuration``.
        ///
        /// - Parameters:
        ///   - sessionConfiguration: the app's settings: headers, proxies, TLS, network access.
        ///   - usesCookieStorage: whether its cookie storage is used.
        ///   - usesURLCache: whether its URL cache is used.
        public init(sessionConfiguration: URLSessionConfiguration, usesCookieStorage: Bool = false, usesURLCache: Bool = false) {
            maximumConnectionsPerHost = sessionConfiguration.httpMaximumConnectionsPerHost
            self.usesCookieStorage = usesCookieStorage
            self.usesURLCache = usesURLCache
            base = SessionSettings(sessionConfiguration)
        }

        /// The configuration's `httpAdditionalHeaders` that the transport adds to requests: text
        /// names and values, credential headers left out.
        var additionalHeaders: [HeaderFields.Field] {
            let headers = base.configuration.httpAdditionalHeaders ?? [:]
            return headers.compactMap { key, value -> HeaderFields.Field? in
                guard let name = key as? String, let value = value as? String, !SensitiveHeaders.contains(name) else { return nil }
                return HeaderFields.Field(name: name, value: value)
            }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        }
    }

    /// A `URLSessionConfiguration` (a class) held by value: copied on the way in and out, never
    /// changed in between, which is what makes sharing it across threads safe.
    fileprivate final class SessionSettings: @unchecked Sendable {
        let configuration: URLSessionConfiguration

        init(_ configuration: URLSessionConfiguration) {
            self.configuration = Self.copy(of: configuration)
        }

        func copy() -> URLSessionConfiguration { Self.copy(of: configuration) }

        private static func copy(of configuration: URLSessionConfiguration) -> URLSessionConfiguration {
            configuration.copy() as? URLSessionConfiguration ?? .ephemeral
        }
    }
}
