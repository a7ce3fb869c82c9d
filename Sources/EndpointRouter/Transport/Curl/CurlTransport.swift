import Foundation

/// The default transport on Linux: libcurl's multi interface, driven directly, without
/// swift-corelibs-foundation's URLSession in between.
///
/// libcurl is loaded at run time from `libcurl.so.4` (the library FoundationNetworking already
/// needs), so nothing is added to the build. Where it cannot be loaded (a statically linked binary,
/// a libcurl older than 7.68), ``availability`` says why and the default transport is
/// ``URLSessionTransport`` instead (see ``DefaultTransport``).
///
/// What it does that URLSession on Linux cannot:
/// - back-pressure: a streaming call whose consumer is behind pauses the transfer
///   (`CURL_WRITEFUNC_PAUSE`), so the server is held back instead of memory filling up;
/// - a cancelled, timed-out or refused exchange is taken off libcurl (its connection closed) before
///   the caller gets its error, on one thread of its own, so one transfer never stalls another;
/// - bodies from memory or a file go out with `Content-Length` (chunked only when a file's size
///   cannot be read), and a request body is never sent twice by libcurl on its own;
/// - TLS and proxy options (``Configuration``).
///
/// Like every transport it carries one exchange and nothing more: redirects, the deadline, limits
/// and retries are the library's.
///
/// ```swift
/// enum BillingAPI: HTTPClient {
///     case invoices
///     /// One transport for the service, trusting the company's own CA; `nil` where libcurl is missing.
///     static let curl = try? CurlTransport(configuration: .init(certificateAuthorityFile: "/etc/billing/ca.pem"))
///     var host: String { "https://billing.internal" }
///     var endpoint: String { "invoices" }
///     var transport: any HTTPTransport { Self.curl ?? DefaultTransport.shared }
/// }
/// ```
public final class CurlTransport: HTTPTransport, CuttableTransport {
    /// Whether libcurl could be loaded on this machine.
    public enum Availability: Sendable, Equatable {
        /// Loaded; `version` is libcurl's own text, such as `libcurl/7.88.1 OpenSSL/3.0.11`.
        case available(version: String)
        /// Not loaded, and why (the loader's message, or the missing function).
        case unavailable(reason: String)
    }

    /// Settings of a transport.
    public struct Configuration: Sendable {
        /// A minimum TLS protocol version.
        public enum TLSVersion: Sendable {
            /// TLS 1.2 or later.
            case tls12
            /// TLS 1.3 only.
            case tls13
        }

        /// Connections opened at most to one host.
        public var maximumConnectionsPerHost: Int
        /// Whether to ask for compressed bodies (gzip, deflate, br and zstd, each whose system library
        /// loads) and decompress them, in the exchange a piece at a time so that a paused stream holds
        /// a small constant; the endpoint's size limit counts decoded bytes. Off, bodies arrive as sent.
        public var decompresses: Bool
        /// A proxy URL, such as `http://proxy:3128`; `nil` takes `http_proxy`, `https_proxy`,
        /// `all_proxy` and `no_proxy` from the environment with libcurl's rules, as URLSession on Linux
        /// does, read once when the transport is made; `""` uses none.
        public var proxy: String?
        /// Hosts reached without the proxy, comma-separated (`no_proxy`'s syntax); `nil` keeps the
        /// environment's.
        public var noProxy: String?
        #if os(Linux)
            /// What the environment named when the transport was made; used where `proxy` or
            /// `noProxy` is `nil`.
            var environmentProxies = ProxyEnvironment([:])
        #endif
        /// A PEM file of the certificate authorities to trust instead of the system store.
        public var certificateAuthorityFile: String?
        /// The server's public keys to accept, each `sha256//` and the base64 SHA-256 of its
        /// SubjectPublicKeyInfo; any other key fails the handshake. Empty: no pinning.
        public var pinnedPublicKeys: [String]
        /// A client certificate and its private key (PEM files), for servers that require mutual TLS.
        public var clientCertificate: (certificateFile: String, keyFile: String)?
        /// The oldest TLS version accepted; `nil` takes libcurl's default.
        public var minimumTLSVersion: TLSVersion?

        /// Creates settings: 6 connections per host, decompression on, proxies from the environment,
        /// the system's trust store.
        public init(
            maximumConnectionsPerHost: Int = 6, decompresses: Bool = true, proxy: String? = nil, noProxy: String? = nil,
            certificateAuthorityFile: String? = nil, pinnedPublicKeys: [String] = [],
            clientCertificate: (certificateFile: String, keyFile: String)? = nil, minimumTLSVersion: TLSVersion? = nil
        ) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.decompresses = decompresses
            self.proxy = proxy
            self.noProxy = noProxy
            self.certificateAuthorityFile = certificateAuthorityFile
            self.pinnedPublicKeys = pinnedPublicKeys
            self.clientCertificate = clientCertificate
            self.minimumTLSVersion = minimumTLSVersion
        }
    }

    /// Whether libcurl can be loaded here, with its version, or why not. Always unavailable on Apple
    /// platforms, where ``URLSessionTransport`` is the default.
    public static var availability: Availability {
        #if os(Linux)
            Libcurl.availability
        #else
            .unavailable(reason: "CurlTransport runs on Linux only")
        #endif
    }

    /// The settings this transport was made with.
    public let configuration: Configuration
    #if os(Linux)
        private let loop: CurlLoop
    #endif

    /// Creates a transport with a thread and a connection pool of its own.
    ///
    /// - Throws: `.transport(.resourceUnavailable)` naming the reason when libcurl cannot be loaded
    ///   (see ``availability``) or cannot start.
    public convenience init(configuration: Configuration = Configuration()) throws(HTTPClientError) {
        try self.init(configuration: configuration, environment: ProcessInfo.processInfo.environment)
    }

    /// Creates a transport that takes its proxies from `environment` instead of the process's.
    init(configuration: Configuration, environment: [String: String]) throws(HTTPClientError) {
        var configuration = configuration
        #if os(Linux)
            configuration.environmentProxies = ProxyEnvironment(environment)
        #endif
        self.configuration = configuration
        #if os(Linux)
            if case .unavailable(let reason) = Self.availability {
                throw .transport(.resourceUnavailable, "libcurl cannot be used: \(reason)")
            }
            guard let loop = CurlLoop(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost) else {
                throw .transport(.resourceUnavailable, "libcurl could not make a multi handle (out of memory)")
            }
            self.loop = loop
        #else
            throw .transport(.resourceUnavailable, "CurlTransport runs on Linux only; use URLSessionTransport")
        #endif
    }

    deinit {
        #if os(Linux)
            loop.stop()
        #endif
    }

    /// Ends every exchange in flight with a `.transport(.resourceUnavailable)` error, closes every
    /// connection and ends the transport's thread; later calls fail the same way. Idempotent, and
    /// returns at once.
    public func shutdown() {
        #if os(Linux)
            loop.stop()
        #endif
    }

    /// Performs one exchange: sends `request` and streams the response body into `sink`.
    public func send(_ request: HTTPRequest, context: RequestContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> HTTPResponseHead
    {
        if Task.isCancelled { throw .cancelled }
        // The pipeline has checked already; a caller using the transport directly has not.
        try RequestChecks.checkHeaders(request.headers, in: context)
        #if os(Linux)
            let loop = self.loop
            let exchange = CurlExchange(request, context: context, sink: sink, options: configuration, loop: loop)
            try context.deadlineCut?.exchangeStarted(exchange)
            defer { context.deadlineCut?.exchangeEnded() }
            let outcome = await withTaskCancellationHandler {
                await withUnsafeContinuation { continuation in
                    if !loop.post(.start(exchange, continuation)) {
                        continuation.resume(
                            returning: .failure(.transport(.resourceUnavailable, "this CurlTransport was shut down; create a new one")))
                    }
                }
            } onCancel: {
                loop.post(.cancel(exchange, .cancelled))
            }
            return try outcome.get()
        #else
            throw .transport(.resourceUnavailable, "CurlTransport runs on Linux only; use URLSessionTransport")
        #endif
    }
}

#if os(Linux)
    internal import CLibcurl

    extension CurlTransport.Configuration {
        /// A text setting ``apply(to:scheme:)`` could not set, named as the caller wrote it.
        enum Refusal {
            /// It holds a NUL, where libcurl would read it cut short; the caller's to fix.
            case nul(setting: String)
            /// libcurl refused it: an option this build lacks, or a value it rejects.
            case libcurl(setting: String)
        }

        /// Sets the TLS and proxy options on `easy`, for a URL of `scheme`; returns the first setting
        /// that could not be set, for the caller's message.
        func apply(to easy: UnsafeMutableRawPointer, scheme: String?) -> Refusal? {
            var refusal: Refusal?
            func set(_ option: Int32, _ text: String, _ name: String) {
                guard refusal == nil else { return }
                if text.utf8.contains(0) {
                    refusal = .nul(setting: name)
                } else if text.withCString({ libcurl_easy_setopt_pointer(easy, option, $0) }) != 0 {
                    refusal = .libcurl(setting: name)
                }
            }
            // Always set, so libcurl does not read the environment itself on the loop thread.
            set(CurlOption.proxy, proxy ?? environmentProxies.proxy(forScheme: scheme), "proxy")
            set(CurlOption.noProxy, noProxy ?? environmentProxies.noProxy ?? "", "noProxy")
            if let certificateAuthorityFile { set(CurlOption.caInfo, certificateAuthorityFile, "certificateAuthorityFile") }
            if !pinnedPublicKeys.isEmpty { set(CurlOption.pinnedPublicKey, pinnedPublicKeys.joined(separator: ";"), "pinnedPublicKeys") }
            if let clientCertificate {
                set(CurlOption.sslCert, clientCertificate.certificateFile, "clientCertificate")
                set(CurlOption.sslKey, clientCertificate.keyFile, "clientCertificate")
            }
            if let minimumTLSVersion, refusal == nil {
                // CURL_SSLVERSION_TLSv1_2 and CURL_SSLVERSION_TLSv1_3.
                let value = minimumTLSVersion == .tls12 ? 6 : 7
                if libcurl_easy_setopt_long(easy, CurlOption.sslVersion, value) != 0 { refusal = .libcurl(setting: "minimumTLSVersion") }
            }
            return refusal
        }
    }
#endif
