import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: URLSession, with the Linux hazards taken out.
///
/// - One long-lived session of its own on an `.ephemeral` configuration, never `URLSession.shared`
///   (which any code in the process can invalidate, after which every use traps). No cookie store,
///   no cache: cookies are headers the caller sets.
/// - Redirects are followed by the library: 301/302/303 become GET without body, 307/308 keep
///   method and body, at most ``Configuration/maximumRedirects`` hops; `Authorization`,
///   `Proxy-Authorization` and `Cookie` are removed when the origin changes; https → http is refused.
/// - A `401` with `WWW-Authenticate: Basic` is returned as the response instead of hanging.
/// - `request.timeoutInterval` is a total deadline enforced by the library, sub-second values included.
/// - Header names, values, reserved headers and bodies on GET/HEAD are checked before sending.
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .init(maximumRedirects: 3))
/// enum API: HTTPClient { ...; var transport: any HTTPTransport { transport } }
/// ```
///
/// TLS on Linux uses the system CA store only (libcurl); pinning and custom trust are not available
/// there. Proxies come from the `http_proxy`/`https_proxy` environment variables on Linux.
public final class URLSessionTransport: HTTPTransport {
    /// Settings of a transport.
    public struct Configuration: Sendable {
        /// Redirect hops followed before failing; `0` returns every redirect as a response.
        public var maximumRedirects: Int
        /// Connections opened at most to one host.
        public var maximumConnectionsPerHost: Int

        /// Creates settings: 10 redirects and 6 connections per host by default.
        public init(maximumRedirects: Int = 10, maximumConnectionsPerHost: Int = 6) {
            self.maximumRedirects = maximumRedirects
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
        }
    }

    /// The transport every endpoint uses unless it names another.
    public static let shared = URLSessionTransport()

    /// The settings this transport was made with.
    public let configuration: Configuration
    private let session: URLSession
    private let delegate: SessionDelegate
    private let isShutDown = Locked(false)

    /// Creates a transport with its own session.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnectionsPerHost)
        delegate = SessionDelegate()
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Lets running requests finish and refuses new ones with a `.transport` error. Idempotent.
    public func shutdown() {
        let first = isShutDown.withLock { isShutDown -> Bool in
            defer { isShutDown = true }
            return !isShutDown
        }
        if first { session.finishTasksAndInvalidate() }
    }

    /// Sends the request, following redirects, within its `timeoutInterval` as a total deadline.
    public func send(_ request: URLRequest) async throws(HTTPClientError) -> HTTPTransportResponse {
        try RequestValidation.validate(request)
        if Task.isCancelled { throw .cancelled }
        let policy = RedirectPolicy(maximumHops: max(0, configuration.maximumRedirects))
        return try await Deadline.run(seconds: request.timeoutInterval) { () throws(HTTPClientError) in
            var current = request
            var hops = 0
            while true {
                let response = try await self.exchange(current)
                guard policy.maximumHops > 0,
                      let next = try policy.nextRequest(after: response, to: current, hopsSoFar: hops) else {
                    return response
                }
                current = next
                hops += 1
            }
        }
    }

    /// One hop: one URLSession task, cancelled with the Swift task.
    private func exchange(_ request: URLRequest) async throws(HTTPClientError) -> HTTPTransportResponse {
        var hop = request
        // The library's deadline governs; URLSession's whole-second idle timer must never fire first.
        // (URLSession on Linux converts it with `Int(...)`, which would trap on NaN: hence the sanitising.)
        hop.timeoutInterval = Deadline.seconds(request.timeoutInterval).rounded(.up) + 1
        hop.httpShouldHandleCookies = false
        hop.cachePolicy = .reloadIgnoringLocalCacheData
        let exchange = Exchange()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.begin(continuation)
                start(hop, in: exchange)
            }
        } onCancel: {
            exchange.cancel()
        }
        return try outcome.get()
    }

    private func start(_ request: URLRequest, in exchange: Exchange) {
        // Task creation happens under the shut-down lock: on an invalidated session it would trap.
        let task = isShutDown.withLock { isShutDown -> URLSessionDataTask? in
            isShutDown ? nil : session.dataTask(with: request)
        }
        guard let task else {
            exchange.complete(error: URLError.described(.resourceUnavailable,
                                                        "this URLSessionTransport was shut down; create a new one"))
            return
        }
        guard exchange.attach(task) else {
            task.cancel()
            return
        }
        delegate.register(exchange, for: task)
        task.resume()
    }
}
