/// Everything a service reads at call time, replaced for one task and the tasks it starts: the
/// transport, the credential stores its ``AuthorizationMiddleware``s name, its middlewares, its
/// options and the clock its waits go through.
///
/// `EndpointRouterTesting`'s `withOverride(_:operation:)` (and its short form `withTransport`)
/// binds it, so that each test runs with its own, in parallel, while the app's enums stay as they
/// are:
///
/// ```swift
/// var override = TaskOverride(transport: stub)
/// override.middlewares = { declared in declared + [LoggingMiddleware(level: .debug)] }
/// await TaskOverride.$current.withValue(override) {
///     await model.reload()          // every HTTPClient request in here goes to `stub`
/// }
/// ```
///
/// The override is read once per call, when the call is made, where the service's own values are
/// read; a call made in the task after the binding ended, or in a `Task.detached`, does not see it.
///
/// Credentials are isolated per override value: an ``AuthorizationMiddleware`` under an override
/// uses a store of the override's own in place of the one it names — the one given to
/// ``substitute(_:with:)``, or else a copy made the first time the store is met, which starts from
/// the named store's credential and keeps its own refreshes, sign-ins and sign-outs. A service
/// declaring its ``CredentialStore`` as a `static let`, as recommended, is therefore safe in tests
/// running in parallel as written: one test's refresh never reaches another's requests.
///
/// The ``clock`` applies to calls whose transport is simulated (``HTTPTransport/isSimulated``: a
/// stub or a replay); a call that goes to a real network keeps ``SystemCallClock`` whatever the
/// override says, so that no backoff against a real server is ever skipped. Under a virtual clock
/// a call ends with `.timedOut` when that clock passes its deadline, and a stream when it passes
/// its idle or total timeout (``StreamLimits``); the real timers still count them in real time, so
/// nothing outside the clock can hang a test.
public struct TaskOverride: Sendable {
    /// The transport every call uses instead of its endpoint's own; `nil` keeps the endpoint's.
    public var transport: (any HTTPTransport)?
    /// The clock the waits of calls on a simulated transport go through; `nil` keeps the system's.
    public var clock: (any CallClock)?
    /// Rewrites the middlewares a service declares (before those passed to one call are added): add
    /// some, drop some or replace them all; `nil` keeps the declared ones.
    public var middlewares: (@Sendable (_ declared: [any HTTPMiddleware]) -> [any HTTPMiddleware])?
    /// Changes the options a service declares for each call; `nil` keeps them.
    public var options: (@Sendable (_ options: inout EndpointOptions) -> Void)?
    /// The stores used in place of the ones services name, and the copies made for the others.
    var credentials: CredentialScope

    /// The override in force for the current task, if one was bound.
    @TaskLocal public static var current: TaskOverride?

    /// Creates an override; every property left `nil` keeps what the service declares, and
    /// credential stores are isolated (see the type's description).
    ///
    /// ```swift
    /// let override = TaskOverride(transport: StubTransport(), options: { $0.retryable = false })
    /// ```
    public init(
        transport: (any HTTPTransport)? = nil,
        clock: (any CallClock)? = nil,
        middlewares: (@Sendable (_ declared: [any HTTPMiddleware]) -> [any HTTPMiddleware])? = nil,
        options: (@Sendable (_ options: inout EndpointOptions) -> Void)? = nil
    ) {
        self.transport = transport
        self.clock = clock
        self.middlewares = middlewares
        self.options = options
        credentials = CredentialScope()
    }

    /// Makes every ``AuthorizationMiddleware`` naming `declared` use `replacement` under this
    /// override: a test's own credential and refresh for a service whose store is a `static let`.
    ///
    /// ```swift
    /// var override = TaskOverride(transport: stub)
    /// override.substitute(FeedAPI.credentials, with: CredentialStore(
    ///     credential: { .bearer("test-token") }, refresh: { _ in .refreshed(.bearer("renewed")) }))
    /// ```
    public mutating func substitute(_ declared: CredentialStore, with replacement: CredentialStore) {
        credentials = credentials.substituting(declared, with: replacement)
    }

    /// This override bound inside `outer`: what this one sets wins, what it leaves `nil` is the
    /// outer one's; substitutions add up, and the copies of the outer scope are kept, so a nested
    /// scope within one test shares its credential state.
    package func nested(in outer: TaskOverride?) -> TaskOverride {
        guard let outer else { return self }
        var merged = self
        merged.transport = transport ?? outer.transport
        merged.clock = clock ?? outer.clock
        if let inner = middlewares, let outerMiddlewares = outer.middlewares {
            merged.middlewares = { declared in inner(outerMiddlewares(declared)) }
        } else {
            merged.middlewares = middlewares ?? outer.middlewares
        }
        if let inner = options, let outerOptions = outer.options {
            merged.options = { options in
                outerOptions(&options)
                inner(&options)
            }
        } else {
            merged.options = options ?? outer.options
        }
        merged.credentials = outer.credentials.adding(credentials)
        return merged
    }

    /// The clock of a call on `transport` under this override: its own for a simulated transport,
    /// the system's otherwise.
    ///
    /// The one rule for which clock a call uses: the pipeline decides it once per call and hands it
    /// down as ``CallContext/clock``, and everything that waits for the call (a stub's latency
    /// included) uses that. It is `package` so that `EndpointRouterTesting`'s direct
    /// `exchange(_:context:)`, which makes a context without a call, applies the same rule.
    package func clock(for transport: any HTTPTransport) -> any CallClock {
        guard transport.isSimulated, let clock else { return SystemCallClock() }
        return clock
    }
}

extension HTTPTransport {
    /// `false`: a transport is real unless it says otherwise. `EndpointRouterTesting`'s
    /// `StubTransport` and `ReplayTransport` say `true`.
    public var isSimulated: Bool { false }
}
