/// The credentials of one service and the state of refreshing them: create it once and keep it
/// (a `static let`), and hand it to ``AuthorizationMiddleware``.
///
/// ```swift
/// enum FeedAPI: HTTPClient {
///     case timeline
///     static let credentials = CredentialStore(
///         credential: { await Keychain.token().map(Credential.bearer) },
///         refresh: { rejected in
///             guard let token = try? await AuthAPI.renew().request(type: Token.self).get() else { return .loggedOut }
///             await Keychain.save(token.value)
///             return .refreshed(.bearer(token.value))
///         })
///
///     var host: String { "https://api.example.com" }
///     var endpoint: String { "timeline" }
///     var middlewares: [any HTTPMiddleware] {
///         [AuthorizationMiddleware(Self.credentials, host: host)]
///     }
/// }
/// ```
///
/// Why a store apart from the middleware: ``HTTPClient/middlewares`` is evaluated for every call,
/// so a middleware value is created again and again. Everything that must outlive one call — the
/// credential, the refresh in flight, the refresh count — lives here, in one object shared by every
/// call that names it; a fresh ``AuthorizationMiddleware`` per call is therefore harmless. A fresh
/// *store* per call is not: each call would load and refresh on its own, so declare the store as a
/// `static let` (or an app-wide property), never inside `middlewares`.
///
/// Refreshing is single-flight: however many requests are rejected at once, the refresh closure
/// runs once and every one of them is sent again with its result. A request that was sent before
/// a refresh and rejected after it never starts another: it is sent again with the current
/// credential, or gets its 401 when that refresh failed.
///
/// More than `maximumRefreshes` refreshes within `window` (a server rejecting every new token)
/// fail fast with ``HTTPClientError/authorizationFailed(_:)`` instead of refreshing again. The
/// window is read on the rejected call's clock (``CallContext/clock``), so a test on a virtual clock
/// passes it with `advance(by:)`.
public actor CredentialStore {
    /// Supplies the credential for the first request, and again after ``logOut()`` or a refresh
    /// that answered `.loggedOut`; `nil` sends requests without one.
    public typealias Provider = @Sendable () async -> Credential?
    /// Gets a new credential after the server rejected `rejected` (`nil` when the request went
    /// without one).
    public typealias Refresher = @Sendable (_ rejected: Credential?) async -> CredentialRefresh

    /// The credential a request was sent with, and which refresh it belongs to.
    struct Issued: Sendable {
        let credential: Credential?
        let generation: Int
    }

    private let provider: Provider
    private let refresher: Refresher
    private let maximumRefreshes: Int
    private let window: Duration

    private var current: Credential?
    private var loaded = false
    private var loading: Task<Void, Never>?
    /// Bumped by every refresh, login and logout: a rejected request from an older generation has
    /// been overtaken and must not refresh again.
    private var generation = 0
    private var lastRefreshSucceeded = false
    private var refreshing: Task<Void, Never>?
    private var refreshTimes: [ContinuousClock.Instant] = []

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - maximumRefreshes: refreshes allowed within `window` before failing fast; at least 1.
    ///   - window: the span the refreshes are counted over.
    ///   - credential: the current credential, asked once and then kept.
    ///   - refresh: a new credential after a 401.
    public init(
        maximumRefreshes: Int = 3, per window: Duration = .seconds(30),
        credential: @escaping Provider, refresh: @escaping Refresher
    ) {
        self.maximumRefreshes = max(1, maximumRefreshes)
        self.window = window
        provider = credential
        refresher = refresh
    }

    /// Replaces the credential, after the user signs in: requests rejected with the old one are sent
    /// again with this one, without a refresh.
    ///
    /// Under a ``TaskOverride`` it changes the override's store for this one (its substitute or its
    /// copy), so a test that signs in changes no other test's credential.
    public nonisolated func set(_ credential: Credential) async {
        await scoped.replace(with: credential)
    }

    /// Forgets the credential, when the user signs out: the provider is asked again on the next
    /// request, and requests rejected with the old credential get their 401.
    ///
    /// Under a ``TaskOverride`` it signs out the override's store for this one, as ``set(_:)`` does.
    public nonisolated func logOut() async {
        await scoped.forget()
    }

    /// The store that stands for this one in the current task: itself, or the override's.
    private nonisolated var scoped: CredentialStore {
        TaskOverride.current?.credentials.store(for: self) ?? self
    }

    /// A store with this one's closures and limits and none of its state, whose credential is first
    /// this one's: what a ``TaskOverride`` uses in its place.
    nonisolated func isolatedCopy() -> CredentialStore {
        CredentialStore(maximumRefreshes: maximumRefreshes, per: window, credential: { await self.issue().credential }, refresh: refresher)
    }

    private func replace(with credential: Credential) {
        current = credential
        loaded = true
        generation += 1
        lastRefreshSucceeded = true
    }

    private func forget() {
        current = nil
        loaded = false
        generation += 1
        lastRefreshSucceeded = false
    }

    /// The credential to send now, loading it from the provider once for all concurrent callers.
    func issue() async -> Issued {
        while !loaded {
            let task = loading ?? Task { self.finishLoading(await self.provider()) }
            loading = task
            await task.value
        }
        return Issued(credential: current, generation: generation)
    }

    /// The credential to send a request again with after the server rejected `issued`, or `nil`
    /// when it should get its 401.
    ///
    /// - Throws: ``HTTPClientError/authorizationFailed(_:)`` when the refresh limit is reached.
    /// `now` is the call's clock's (``CallContext/clock``): a test's virtual clock moves the window.
    func refresh(rejected issued: Issued, now: ContinuousClock.Instant = .now) async throws(HTTPClientError) -> Credential? {
        // A credential issued before the last change was replaced already: the current one is the answer.
        guard issued.generation == generation else { return lastRefreshSucceeded ? current : nil }
        if refreshing == nil {
            refreshTimes.removeAll { now - $0 >= window }
            guard refreshTimes.count < maximumRefreshes else {
                throw .authorizationFailed(
                    "the credential was refreshed \(maximumRefreshes) times within \(window) and the server still rejects it; "
                        + "check the refresh closure and the server's clock, or raise `maximumRefreshes`")
            }
            refreshTimes.append(now)
            refreshing = Task { self.finishRefresh(await self.refresher(issued.credential)) }
        }
        // One refresh at a time: a rejection that comes while one runs waits for its outcome.
        await refreshing?.value
        return lastRefreshSucceeded ? current : nil
    }

    private func finishLoading(_ credential: Credential?) {
        loading = nil
        guard !loaded else { return }
        current = credential
        loaded = true
    }

    private func finishRefresh(_ outcome: CredentialRefresh) {
        refreshing = nil
        switch outcome {
        case .refreshed(let credential): replace(with: credential)
        case .failed:
            generation += 1
            lastRefreshSucceeded = false
        case .loggedOut: forget()
        }
    }
}
