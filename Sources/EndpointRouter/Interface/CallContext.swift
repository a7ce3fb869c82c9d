/// What the library knows about one call, handed with the request to every middleware and to the
/// transport: which endpoint it is, which attempt, and how long it may still take.
///
/// ```swift
/// struct Timing: HTTPMiddleware {
///     func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
///         let start = ContinuousClock.now
///         defer { print("\(context.endpointName) attempt \(context.attempt): \(ContinuousClock.now - start)") }
///         return try await next(request, context)
///     }
/// }
/// ```
public struct CallContext: Sendable {
    /// A readable identity of the service and case, such as `"TodoAPI.todo"`, for logs and metrics.
    /// It never contains the case's associated values, which may be secret.
    ///
    /// An endpoint that leaves ``HTTPClient/endpointName`` at its default has it derived the first
    /// time it is read here, not on every call.
    public var endpointName: String {
        get {
            switch name {
            case .known(let name): name
            case .derived(let derived): derived.name
            }
        }
        set { name = .known(newValue) }
    }
    /// The endpoint's name, or how to derive it.
    enum Name: Sendable {
        case known(String)
        case derived(DerivedName)
    }
    private var name: Name
    /// 1 for the first time a request goes down the chain; 2, 3, … each time a middleware calls
    /// `next` again (a retry, a replay after refreshing a token).
    public var attempt: Int
    /// The instant the whole call must end by, all attempts, waits and redirects included, on
    /// ``clock``. The library ends the call with `.timedOut` then, whatever a middleware or transport
    /// is doing: when that clock passes it (a test's virtual clock has an alarm for it), and in any
    /// case after the endpoint's `timeout` of real time.
    public var deadline: ContinuousClock.Instant
    /// What the endpoint declared for the middlewares (``HTTPClient/options``).
    public var options: EndpointOptions
    /// The clock the call's waits go through: ``SystemCallClock`` unless a ``TaskOverride`` gave
    /// one for a simulated transport. A middleware that waits or reads the time uses it, so that a
    /// test on a virtual clock does not wait for real.
    public var clock: any CallClock
    /// The credential stores of the ``TaskOverride`` in force when the call was made, if any.
    var credentials: CredentialScope?
    /// Where a transport reports how much of the request body went out; `nil` when nobody asked.
    let uploadProgress: ProgressReporter?
    /// The stream-end handlers of a streaming call; `nil` for a call that ends in a whole body.
    var streamObserver: StreamObserver?
    /// The call's deadline when it runs in its caller's task (``Deadline/runInCallerTask(until:cut:_:)``):
    /// a ``CuttableTransport`` registers each exchange with it.
    var deadlineCut: DeadlineCut?
    /// What the pipeline checked of the request after the last middleware; `nil` for a context made
    /// outside the pipeline, whose caller checked nothing.
    var checkedRequest: CheckedRequest?

    /// A middleware run around each request the pipeline hands to the transport: the request of
    /// each attempt and each redirect hop the library follows, after the request checks; `nil` (the
    /// default) for none. Its `next` performs that one exchange, and the request it passes on is the
    /// one sent.
    ///
    /// Middlewares see one request per attempt, and redirects happen below them all, so a middleware
    /// that must see every request actually sent sets this on the context it passes to `next`. The
    /// last one set wins: a middleware closer to the transport replaces what one closer to the
    /// caller set. EndpointRouterTracing's `ClientTracingMiddleware` uses it to give each request
    /// sent its own span and `traceparent`. Headers it changes are checked again before they are sent.
    ///
    /// <!-- snippet: prelude=doc,doc-intercept -->
    /// ```swift
    /// var context = context
    /// // A line for each request actually sent, redirect hops included.
    /// context.exchangeMiddleware = LoggingMiddleware(level: .debug)
    /// return try await next(request, context)
    /// ```
    public var exchangeMiddleware: (any HTTPMiddleware)?

    /// Whether this call streams its body to the caller (`events()`, `lines()`, `jsonLines(of:)`,
    /// `bytes()`): the response a middleware gets back from `next` then carries the head with an
    /// empty body, and the body flows to the caller after every middleware has returned.
    ///
    /// Middlewares that need the whole body skip such calls: ``CachingMiddleware`` and
    /// ``DeduplicationMiddleware`` pass them through untouched.
    public var isStreaming: Bool { streamObserver != nil }

    /// For a streaming call, runs `handler` once when the stream delivered to the caller ends, with
    /// its byte and element counts (or when the call fails before one was delivered); for any other
    /// call, does nothing. ``LoggingMiddleware`` and ``CallMetricsMiddleware`` report the end of a
    /// stream this way. Register it for a response whose ``IncomingResponse/isStreaming`` is set: an
    /// error response of a streaming call (a 503 about to be retried) is whole already.
    ///
    /// <!-- snippet: prelude=doc,doc-intercept -->
    /// ```swift
    /// let response = try await next(request, context)
    /// if response.isStreaming {
    ///     context.onStreamEnd { summary in log("\(summary.elements) events in \(summary.duration)") }
    /// }
    /// return response
    /// ```
    public func onStreamEnd(_ handler: @escaping @Sendable (StreamSummary) -> Void) {
        streamObserver?.add(handler)
    }

    /// Creates a context, for a test that calls a middleware or transport directly.
    /// Give `clock` the clock `deadline` is on when it is not the system's.
    public init(
        endpointName: String, attempt: Int = 1, deadline: ContinuousClock.Instant, options: EndpointOptions = EndpointOptions(),
        clock: any CallClock = SystemCallClock()
    ) {
        self.init(name: .known(endpointName), attempt: attempt, deadline: deadline, options: options, uploadProgress: nil, clock: clock)
    }

    init(
        name: Name, attempt: Int, deadline: ContinuousClock.Instant, options: EndpointOptions, uploadProgress: ProgressReporter?,
        streamObserver: StreamObserver? = nil, clock: any CallClock = SystemCallClock(), credentials: CredentialScope? = nil
    ) {
        self.clock = clock
        self.credentials = credentials
        self.streamObserver = streamObserver
        self.name = name
        self.attempt = attempt
        self.deadline = deadline
        self.options = options
        self.uploadProgress = uploadProgress
    }

    /// The time left before ``deadline`` on ``clock``; zero once it has passed.
    public var remainingTime: Duration {
        max(.zero, deadline - clock.now)
    }

    /// For transports: reports that `sentBytes` of the request body have gone out, of `totalBytes`
    /// when known. The caller's upload progress closure sees it; reports that go backwards are dropped.
    ///
    /// Safe to call from a transport's I/O thread, as often as it likes: it only records the value
    /// and returns at once; the closure runs later, on a Dispatch global queue, coalesced to the
    /// newest value, so the caller's code never runs on (or blocks) the transport's thread.
    public func reportUpload(sentBytes: Int64, totalBytes: Int64?) {
        uploadProgress?.report(TransferProgress(completedBytes: sentBytes, expectedBytes: totalBytes))
    }
}
