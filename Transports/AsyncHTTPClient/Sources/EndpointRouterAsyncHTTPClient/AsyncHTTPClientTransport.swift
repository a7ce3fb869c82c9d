import AsyncHTTPClient
import EndpointRouter
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// A transport on AsyncHTTPClient (SwiftNIO): for servers on Linux, where URLSession runs on libcurl.
///
/// It carries one exchange and nothing more, like every transport: the library keeps the deadline,
/// the request checks, redirects (AsyncHTTPClient's own following is off) and the size limit. What
/// it adds over ``URLSessionTransport`` on Linux: more throughput (against raw URLSession, 3.98× with
/// 64 calls in flight and 1.56× one at a time in Benchmarks/README.md, scenario 5), an abandoned
/// transfer's connection closed within 2 s, small requests to another host answered within 300 ms
/// during a 512 MiB download, repeated response fields (two `Set-Cookie`) kept separate and in order,
/// and TLS configurable — custom trust roots, certificate pinning, client certificates — through
/// `TLSConfiguration`.
///
/// A server app switches a service enum to it with one line (and one transport for the process):
///
/// ```swift
/// enum BillingAPI: HTTPClient {
///     static let ahc = AsyncHTTPClientTransport()
///     ...
///     var transport: any HTTPTransport { Self.ahc }
/// }
/// ```
///
/// Either it owns its `HTTPClient` (``init(configuration:eventLoopGroup:)``), or it borrows one the
/// app already has (``init(client:)``, for example Vapor's `app.http.client.shared`), which it never
/// shuts down.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The AsyncHTTPClient client every exchange goes through.
    public let client: AsyncHTTPClient.HTTPClient
    private let ownsClient: Bool
    private let isShutDown = NIOLockedValueBox(false)

    /// Creates a transport that owns a new `HTTPClient` made with `configuration`.
    ///
    /// Whatever `configuration` says about redirects, this client does not follow them: the library
    /// does, with its own rules (credentials removed on a change of origin, a limit, one deadline).
    /// Everything else is kept as given, `tlsConfiguration` among it:
    ///
    /// ```swift
    /// var configuration = AsyncHTTPClientTransport.defaultConfiguration
    /// var tls = TLSConfiguration.makeClientConfiguration()
    /// tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile("/etc/billing/ca.pem"))
    /// configuration.tlsConfiguration = tls
    /// let transport = AsyncHTTPClientTransport(configuration: configuration)
    /// ```
    ///
    /// Call ``shutdown()`` when the app stops. A transport that is released without it shuts its
    /// client down in the background, after the exchanges in flight end: nothing leaks, but nothing
    /// waits for it either.
    public init(
        configuration: AsyncHTTPClient.HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration,
        eventLoopGroup: any EventLoopGroup = AsyncHTTPClient.HTTPClient.defaultEventLoopGroup
    ) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        client = AsyncHTTPClient.HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        ownsClient = true
    }

    /// Creates a transport on a client the app already has and keeps running, such as Vapor's
    /// `app.http.client.shared` or one a Hummingbird app made: its connection pool and event loops
    /// are shared, and the transport never shuts it down.
    ///
    /// The client must have been made with `redirectConfiguration: .disallow`, because the library
    /// follows redirects itself; AsyncHTTPClient's default follows them, and nothing can turn that
    /// off afterwards. A response that such a client reached by following a redirect is refused with
    /// `.transport(.httpTooManyRedirects)` naming the fix, so the mistake shows in the first test.
    public init(client: AsyncHTTPClient.HTTPClient) {
        self.client = client
        ownsClient = false
    }

    deinit {
        guard ownsClient, !isShutDown.withLockedValue({ $0 }) else { return }
        // Never blocks: the client finishes shutting down on a queue of its own.
        client.shutdown { _ in }
    }

    /// The client settings a transport uses unless given others: AsyncHTTPClient's defaults, with
    /// gzip and deflate bodies decompressed (as URLSession does), a decompression bomb refused once
    /// it expands past ``decompressionRatioLimit`` times the bytes received, and a failed connection
    /// reported without being retried until the connect timeout (retrying is a policy, and
    /// policies are the library's: a retry middleware decides).
    ///
    /// The endpoint's `maxResponseSize` counts decompressed bytes as well; the ratio only bounds the
    /// memory one network read can turn into before the library's limit is checked.
    public static var defaultConfiguration: AsyncHTTPClient.HTTPClient.Configuration {
        var configuration = AsyncHTTPClient.HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .enabled(limit: .ratio(decompressionRatioLimit))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// How many times its compressed size a response body may expand to, in the default
    /// configuration: more than ordinary JSON or text (5–20), far less than a gzip bomb (about 1000).
    public static let decompressionRatioLimit = 200

    /// Shuts the client down, for a transport that owns it: exchanges in flight are cancelled, later
    /// ones fail with `.transport(.resourceUnavailable)`. Idempotent. A borrowed client is left
    /// running (its owner shuts it down), and this returns at once.
    public func shutdown() async throws {
        let first = isShutDown.withLockedValue { isShutDown -> Bool in
            defer { isShutDown = true }
            return !isShutDown
        }
        guard ownsClient, first else { return }
        try await client.shutdown()
    }

    /// Performs one exchange: sends `request` and streams the response body into `sink`.
    public func send(_ request: EndpointRouter.OutgoingRequest, context: CallContext, sink: any ResponseBodySink)
        async throws(EndpointRouter.HTTPClientError) -> EndpointRouter.ResponseHead
    {
        if Task.isCancelled { throw .cancelled }
        let outgoing = try PreparedRequest(request, context: context)
        do {
            let response = try await client.execute(outgoing.request, deadline: Self.backstop(for: context))
            guard response.history.count <= 1 else { throw Self.followedRedirect(request) }
            let head = EndpointRouter.ResponseHead(
                statusCode: Int(response.status.code),
                headers: EndpointRouter.HeaderFields(response.headers.map { .init(name: $0.name, value: $0.value) }),
                url: request.url)
            // A response can start before the last body byte went out; by now the server has it all
            // or has answered without it, and either way no more will be sent.
            outgoing.reportUploadFinished()
            try sink.receive(head)
            // Leaving the loop early (the sink refused, the task was cancelled) drops the body, and
            // AsyncHTTPClient then closes the connection instead of reading the rest. The body is
            // pulled only when the sink has room: AsyncHTTPClient reads from the socket on demand,
            // so a streaming call's slow consumer holds the server back instead of filling memory.
            var pieces = response.body.makeAsyncIterator()
            while true {
                try await sink.waitForDemand()
                guard let piece = try await pieces.next() else { break }
                // Pieces already buffered can still come after a cancel; none reaches the sink then.
                if Task.isCancelled { throw EndpointRouter.HTTPClientError.cancelled }
                try Self.deliver(piece, into: sink)
            }
            if Task.isCancelled { throw EndpointRouter.HTTPClientError.cancelled }
            return head
        } catch {
            throw TransportFailure.map(error, url: request.url)
        }
    }

    private static func deliver(_ piece: ByteBuffer, into sink: any ResponseBodySink) throws(EndpointRouter.HTTPClientError) {
        do {
            try piece.withUnsafeReadableBytes { bytes in try sink.write(bytes) }
        } catch let error as EndpointRouter.HTTPClientError {
            throw error
        } catch {
            throw .transport(.cannotWriteToFile, "the response body could not be delivered: \(error)")
        }
    }

    /// AsyncHTTPClient's own deadline, a second after the library's: the library cancels the exchange
    /// at its deadline; this only keeps a transport called without one from running for ever.
    private static func backstop(for context: CallContext) -> NIODeadline {
        let remaining = context.remainingTime.components
        let nanoseconds = remaining.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .distantFuture }
        return .now() + .nanoseconds(nanoseconds.partialValue + remaining.attoseconds / 1_000_000_000) + .seconds(1)
    }

    private static func followedRedirect(_ request: EndpointRouter.OutgoingRequest) -> EndpointRouter.HTTPClientError {
        .transport(
            .httpTooManyRedirects,
            "the HTTPClient given to AsyncHTTPClientTransport followed a redirect itself; create it with "
                + "redirectConfiguration: .disallow, because EndpointRouter follows redirects with its own rules",
            url: request.url)
    }
}
