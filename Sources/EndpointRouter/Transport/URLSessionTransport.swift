import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession, with the Linux hazards taken out: the default transport on Apple platforms, and on
/// Linux when libcurl cannot be loaded for ``CurlTransport`` (see ``DefaultTransport``).
///
/// - One long-lived session of its own on an `.ephemeral` configuration (or the app's own, with
///   the library's rules on top: ``Configuration``), never `URLSession.shared` (which any code in
///   the process can invalidate, after which every use traps). No cookie store, no cache unless the
///   app asks for them: cookies are headers the caller sets.
/// - One exchange per call: URLSession's own redirect following is turned off (the library follows
///   redirects with the same rules for every transport), and a `401` with `WWW-Authenticate: Basic`
///   is returned as the response instead of hanging.
/// - The body streams into the library's sink as it arrives, so size limits and downloads never
///   hold more than they should in memory.
/// - No URLSession call is made on the caller's thread or the cooperative pool: cancelling returns
///   at once, even while a fast body holds URLSession's work queue.
/// - On Linux, a request with a body or a method that is not idempotent (POST, PATCH) goes on a
///   connection of its own, because libcurl under corelibs sends a request again by itself when a
///   kept-alive connection dies before the answer: a payment would reach the server twice. It is sent
///   once per library attempt, and a dead connection is a `.transport` error the retry rules act on;
///   each such request pays a connection set-up. A bodiless GET may still be sent twice, unseen
///   (see the Linux article).
/// - It cannot pause a body (``ResponseBodySink/waitForDemand()`` is not called): URLSession pushes
///   pieces through delegate callbacks, and on Linux `suspend()` followed by a `cancel()` can crash
///   corelibs. A streaming call whose consumer falls a whole buffer behind therefore ends with
///   `.responseTooLarge`; on Linux corelibs may go on reading, and memory growing, until the
///   connection closes (see the Streaming article).
///
/// ```swift
/// enum API: HTTPClient {
///     case items
///     static let sharedTransport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: 16))
///     var host: String { "https://api.example.com" }
///     var endpoint: String { "items" }
///     var transport: any HTTPTransport { Self.sharedTransport }
/// }
/// ```
///
/// Headers: URLSession joins repeated response fields into one value and does not keep their
/// order; this transport sorts them by name, and splits `Set-Cookie` back into one field per cookie
/// at each comma followed by a space and `name=` (`values(for: "Set-Cookie")` keeps `Expires` dates and
/// other commas in their cookie; a value that itself holds `, name=` is split there). TLS on Linux uses the system CA store only (libcurl); pinning and custom trust are not
/// available there. Proxies come from the `http_proxy`/`https_proxy` environment variables on Linux.
public final class URLSessionTransport: HTTPTransport {
    /// The transport every endpoint uses unless it names another.
    public static let shared = URLSessionTransport()

    /// The settings this transport was made with.
    public let configuration: Configuration
    private let session: URLSession
    private let delegate: SessionDelegate
    private let isShutDown = Locked(false)
    private let additionalHeaders: [HeaderFields.Field]

    /// Creates a transport with its own session.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        additionalHeaders = configuration.additionalHeaders
        delegate = SessionDelegate()
        session = URLSession(configuration: Self.sessionConfiguration(configuration), delegate: delegate, delegateQueue: nil)
    }

    /// The settings of every session this transport makes: the app's, with the library's rules on
    /// top (listed on ``Configuration``).
    static func sessionConfiguration(_ configuration: Configuration) -> URLSessionConfiguration {
        let sessionConfiguration = configuration.sessionConfiguration
        if !configuration.usesCookieStorage {
            sessionConfiguration.httpCookieStorage = nil
            sessionConfiguration.httpShouldSetCookies = false
            sessionConfiguration.httpCookieAcceptPolicy = .never
        }
        if !configuration.usesURLCache {
            sessionConfiguration.urlCache = nil
            sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        }
        // Each request carries its own idle timeout, from the call's deadline (see `send`).
        sessionConfiguration.timeoutIntervalForResource = Deadline.maximumSeconds
        // Added per request by `send`, where the header checks see them.
        sessionConfiguration.httpAdditionalHeaders = nil
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnectionsPerHost)
        return sessionConfiguration
    }

    deinit {
        Self.invalidate(session)
    }

    /// Lets running requests finish and refuses new ones with a `.transport` error. Idempotent, and
    /// returns at once.
    public func shutdown() {
        let first = isShutDown.withLock { isShutDown -> Bool in
            defer { isShutDown = true }
            return !isShutDown
        }
        if first { Self.invalidate(session) }
    }

    /// Invalidation waits for URLSession's work queue, which a fast transfer can hold for seconds:
    /// never on the caller's thread, which may be one of the cooperative pool's few.
    private static func invalidate(_ session: URLSession) {
        DispatchQueue.global().async { session.finishTasksAndInvalidate() }
    }

    /// Exchanges in flight whose URLSession task has not reported completion.
    var activeExchangeCount: Int { delegate.activeCount }

    /// Performs one exchange: sends `request` and streams the response body into `sink`.
    public func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        if Task.isCancelled { throw .cancelled }
        var request = request
        for field in additionalHeaders where !request.headers.contains(field.name) {
            request.headers.add(name: field.name, value: field.value)
        }
        // The pipeline has checked already (but not the configuration's additional headers, nor a
        // redirect hop's URL); a caller using the transport directly has not, and URLSession on Linux
        // writes a header name with CR/LF to the wire as it is (injection) and fetches an ftp:// URL.
        try RequestChecks.checkBeforeSending(request, in: context)
        #if canImport(FoundationNetworking)
            // corelibs refuses a URL whose host is an IPv6 literal with a bare "-1000": say why, and what works.
            if let host = request.url.host, host.contains(":") {
                throw .transport(
                    .unsupportedURL,
                    "URLSession on Linux cannot reach an IPv6 literal host ([\(host)]): swift-corelibs-foundation refuses "
                        + "such URLs. Use CurlTransport (the default on Linux where libcurl loads), or a host name that resolves "
                        + "to the address; nothing was sent",
                    url: request.url)
            }
        #endif
        var urlRequest = request.urlRequest
        // The library's deadline governs; URLSession's whole-second idle timer is only a backstop that
        // must never fire first.
        let remaining = Double(context.remainingTime.components.seconds) + 1
        urlRequest.timeoutInterval = min(remaining, Deadline.maximumSeconds).rounded(.up) + 1
        if !configuration.usesCookieStorage { urlRequest.httpShouldHandleCookies = false }
        if !configuration.usesURLCache { urlRequest.cachePolicy = .reloadIgnoringLocalCacheData }
        let upload: URL? = if case .file(let file) = request.body { file } else { nil }
        let uploadLength = upload.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }
        let exchange = URLSessionExchange(
            sink: sink, context: context, method: request.method, uploadLength: uploadLength?.int64Value)
        let prepared = urlRequest
        #if canImport(FoundationNetworking)
            let onFreshConnection = request.body != nil || !request.method.isIdempotent
        #else
            let onFreshConnection = false
        #endif
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.begin(continuation)
                exchange.queue.async {
                    self.start(prepared, uploading: upload, onFreshConnection: onFreshConnection, in: exchange)
                }
            }
        } onCancel: {
            exchange.fail(.cancelled)
        }
        return try outcome.get()
    }

    /// Creates and resumes the task; runs on the exchange's queue, where blocking is harmless.
    ///
    /// `onFreshConnection` (on Linux, for a request with a body or a method that is not idempotent):
    /// the request goes on a session of its own, which has no kept-alive connection. When a reused
    /// connection dies before any answer, libcurl under corelibs sends the request again by itself:
    /// a body read from a file reached the server twice (the caller saw the second answer), and an
    /// in-memory body hung until the deadline (measured by SingleSendConformanceTests). A connection
    /// of its own is never a reused one, so a dead connection fails the request with a `.transport`
    /// error before its deadline, which the retry rules act on, counted as an attempt. The cost is a
    /// connection set-up (and TLS handshake) for each such request. A bodiless GET, HEAD, DELETE or
    /// OPTIONS keeps the pool, and libcurl may still send it a second time on a dead connection,
    /// unseen by the library's attempt count.
    private func start(_ request: URLRequest, uploading file: URL?, onFreshConnection: Bool, in exchange: URLSessionExchange) {
        guard exchange.isOpen else { return }
        // Task creation happens under the shut-down lock: on an invalidated session it would trap.
        let made = isShutDown.withLock { isShutDown -> (task: URLSessionTask, oneShot: URLSession?)? in
            guard !isShutDown else { return nil }
            let oneShot =
                onFreshConnection
                ? URLSession(configuration: Self.sessionConfiguration(configuration), delegate: delegate, delegateQueue: nil) : nil
            let session = oneShot ?? self.session
            guard let file else { return (session.dataTask(with: request), oneShot) }
            return (Self.streamingTask(in: session, request, from: file), oneShot)
        }
        // Invalidated once its one task is made: it finishes that task, then lets go of the delegate.
        if let oneShot = made?.oneShot { Self.invalidate(oneShot) }
        guard let task = made?.task else {
            exchange.fail(.transport(.resourceUnavailable, "this URLSessionTransport was shut down; create a new one"))
            return
        }
        delegate.register(exchange, for: task)
        guard exchange.attach(task) else {
            delegate.unregister(task)
            task.cancel()
            return
        }
        task.resume()
    }

    /// The task sending `file` as the body.
    ///
    /// On Linux, not `uploadTask(with:fromFile:)`: corelibs reads the file with `DispatchIO`, and a
    /// read completing after the transfer ended (cancelled, timed out, or answered early by the
    /// server) un-pauses a transfer libcurl no longer has; corelibs traps on the refusal
    /// (`EasyHandle.swift:484`, `libcurl.Easy Code=43`). Cancelled uploads to a redirect killed the
    /// process within a few hundred calls (CompletionRaceTests). A body stream is read inside
    /// libcurl's own read callback instead, so nothing outlives the transfer. Its length is unknown
    /// to corelibs, so libcurl sends it chunked: setting `Content-Length` as well would put both
    /// framings on the wire (a request-smuggling shape), and corelibs has no way to name the length.
    private static func streamingTask(in session: URLSession, _ request: URLRequest, from file: URL) -> URLSessionTask {
        #if canImport(FoundationNetworking)
            // A file gone since the request checks: corelibs' own upload task reports it as an error.
            guard let stream = InputStream(url: file) else { return session.uploadTask(with: request, fromFile: file) }
            var streamed = request
            streamed.httpBodyStream = stream
            return session.dataTask(with: streamed)
        #else
            return session.uploadTask(with: request, fromFile: file)
        #endif
    }
}
