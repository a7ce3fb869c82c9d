/// Moves the bytes of one exchange: sends one request, returns the response head and delivers the
/// body into the sink. The only place that does network I/O.
///
/// Everything else is the library's: the total deadline, the request checks, redirects, the size
/// limit and the body's destination. ``DefaultTransport`` is the default (``CurlTransport`` on Linux,
/// ``URLSessionTransport`` on Apple platforms); implement your own to
/// use another HTTP engine, or use `EndpointRouterTesting`'s transports in tests:
///
/// ```swift
/// struct TeapotTransport: HTTPTransport {
///     func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError) -> ResponseHead {
///         let head = ResponseHead(statusCode: 418, headers: ["Content-Type": "text/plain"], url: request.url)
///         try sink.receive(head)
///         try sink.write(Data("I'm a teapot".utf8))
///         return head
///     }
/// }
/// ```
///
/// The contract, which the library's conformance tests check for every transport it ships (closing
/// an abandoned connection is checked within 2 s for the AsyncHTTPClient transport, and is a recorded
/// known issue for `URLSessionTransport` on Linux):
/// - exactly one exchange: never follow a redirect (a `3xx` is a response like any other);
/// - every status is a response; throw only when no complete response arrived;
/// - call `sink.receive(_:)` once, then `sink.write(_:)` for each piece of the body; when the sink
///   throws, stop reading, cancel the exchange and throw that error;
/// - end with `.cancelled` when the calling task is cancelled (the suite's bound: 50 ms, best of
///   three tries), without blocking the calling thread, and close the connection of an abandoned
///   exchange;
/// - report upload progress with ``CallContext/reportUpload(sentBytes:totalBytes:)`` if it can,
///   from any thread (the library runs the caller's closure elsewhere, never on that thread);
/// - never block the thread it is called on: wait with `await`. The library starts a call's work on
///   the caller's thread (no thread hand-off per call) and keeps the deadline by resuming the
///   caller from a timer, which an `await` that ignores cancellation cannot stop but a thread held
///   by a lock, a semaphore or a synchronous read can. As everywhere in Swift concurrency (and
///   SwiftNIO), blocking is outside the contract: it delays the caller and starves the thread pool.
public protocol HTTPTransport: Sendable {
    /// Sends `request`, delivers the response into `sink` and returns its head.
    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead

    /// Whether the exchanges are simulated (a stub, a replay) rather than made on a network: only
    /// calls on such a transport follow a ``TaskOverride/clock``. `false` by default.
    var isSimulated: Bool { get }
}
