/// What a ``CredentialStore``'s refresh closure reports after the server rejected a credential.
///
/// ```swift
/// let store = CredentialStore(credential: { await Keychain.token().map(Credential.bearer) }, refresh: { rejected in
///     switch await session.renewToken() {
///     case .ok(let token): .refreshed(.bearer(token))
///     case .revoked: .loggedOut          // the user must sign in again
///     case .offline: .failed             // keep the token; a later 401 tries again
///     }
/// })
/// ```
public enum CredentialRefresh: Sendable, Hashable {
    /// A new credential: every request that waited for the refresh is sent again with it.
    case refreshed(Credential)
    /// The refresh did not work this time; the current credential is kept and every waiting request
    /// gets its 401 (as ``HTTPClientError/unacceptableStatusCode(_:)``).
    case failed
    /// The session is over: the store forgets its credential and asks its provider again on the next
    /// request; every waiting request gets its 401.
    case loggedOut
}
