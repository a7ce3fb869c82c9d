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
        private let loops: CurlLoopGroup
    #endif

    /// Creates a transport with threads and connection pools of its own: ``Configuration/loopCount`` loops.
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
            guard
                let loops = CurlLoopGroup(
                    loopCount: configuration.loopCount, maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
                    idleSpin: configuration.idleSpin)
            else {
                throw .transport(.resourceUnavailable, "libcurl could not make a multi handle (out of memory)")
            }
            self.loops = loops
        #else
            throw .transport(.resourceUnavailable, "CurlTransport runs on Linux only; use URLSessionTransport")
        #endif
    }

    deinit {
        #if os(Linux)
            loops.shutdown()
        #endif
    }

    /// Ends every exchange in flight with a `.transport(.resourceUnavailable)` error, closes every
    /// connection and ends the transport's threads; later calls fail the same way. Idempotent, and
    /// returns at once.
    public func shutdown() {
        #if os(Linux)
            loops.shutdown()
        #endif
    }

    #if os(Linux)
        /// The error of a call after ``shutdown()``, made only then: a `URLError` with its user info
        /// costs about 2,500 instructions, which every call paid when it was made up front (callgrind,
        /// `SIDES=library Benchmarks/instructions curl`, sequential GET).
        static var shutDownError: HTTPClientError {
            .transport(.resourceUnavailable, "this CurlTransport was shut down; create a new one")
        }
    #endif

    /// Performs one exchange: sends `request` and streams the response body into `sink`.
    public func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        if Task.isCancelled { throw .cancelled }
        // The pipeline has checked already; a caller using the transport directly has not.
        try RequestChecks.checkBeforeSending(request, in: context)
        #if os(Linux)
            // Once per call: the group counts its load by it, and gives the host's integer id (`origin`)
            // that the loop's admission counts by.
            let host = CurlLoopGroupState.hostKey(of: request.url)
            guard let picked = loops.loop(forHost: host) else { throw Self.shutDownError }
            // The loop's load counts the call until the caller has its outcome (``CurlLoopGroupState``).
            defer { loops.ended(slot: picked.slot, loop: picked.index) }
            let loop = picked.loop
            let exchange = CurlExchange(request, origin: picked.origin, context: context, sink: sink, options: configuration, loop: loop)
            try context.deadlineCut?.exchangeStarted(exchange)
            defer { context.deadlineCut?.exchangeEnded() }
            let outcome = await withTaskCancellationHandler {
                await withUnsafeContinuation { continuation in
                    if !loop.post(.start(exchange, continuation)) {
                        continuation.resume(returning: .failure(Self.shutDownError))
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
