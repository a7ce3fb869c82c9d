import EndpointRouter
import Testing

/// The one rule that decides which header names and query keys are redacted without being listed,
/// and its opt-out: the edges a substring rule gets wrong are pinned here.
@Suite("Credential names")
struct CredentialNameTests {
    static let credentialLooking = [
        "Authorization", "proxy-authorization", "Cookie", "SET-COOKIE", "X-Api-Key", "x-api-key", "api_key", "apiKey",
        "APIKEY", "key", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key", "X-Auth-Token", "access_token", "refresh_token",
        "client_secret", "password", "X-Password", "passwd", "X-Session", "sessionid", "X-CSRF-Token", "Signature",
        "X-Goog-Signature", "X-Amz-Signature", "X-Amz-Security-Token", "X-Amz-Credential", "AWSAccessKeyId", "sig",
        "SIG", "auth", "x-monkey-key", "monkeyKey", "keyboard_key",
    ]
    static let ordinary = [
        "Keep-Alive", "X-Monkey", "keyboard", "keywords", "Hockey-Team", "Accept", "Content-Type", "X-Request-Id",
        "page", "sort", "author", "design", "signal", "signup", "X-Possession", "ETag", "User-Agent", "q",
    ]

    @Test(arguments: credentialLooking)
    func aCredentialLookingNameIsRedacted(_ name: String) {
        #expect(Redaction().redactsHeader(name))
        #expect(Redaction().redactsQueryKey(name))
    }

    @Test(arguments: ordinary)
    func anOrdinaryNameIsShown(_ name: String) {
        #expect(!Redaction().redactsHeader(name))
        #expect(!Redaction().redactsQueryKey(name))
    }

    @Test func revealingShowsOneNameInAnyCasingAndNothingElse() {
        let redaction = Redaction(revealing: ["Idempotency-Key", "session"])
        #expect(Redaction().redactsHeader("Idempotency-Key"))
        #expect(!redaction.redactsHeader("idempotency-key"))
        #expect(!redaction.redactsQueryKey("SESSION"))
        #expect(redaction.redactsHeader("X-Api-Key"))
        #expect(redaction.redactsQueryKey("session_id"))
    }

    @Test func theCredentialHeadersAndListedNamesCannotBeRevealed() {
        let redaction = Redaction(
            headers: ["X-Api-Key"], queryKeys: ["api_key"],
            revealing: ["Authorization", "Cookie", "Set-Cookie", "Proxy-Authorization", "X-Api-Key", "api_key"])
        for name in ["authorization", "Cookie", "set-cookie", "Proxy-Authorization", "x-api-key"] {
            #expect(redaction.redactsHeader(name), "\(name)")
        }
        #expect(redaction.redactsQueryKey("API_KEY"))
    }

    @Test func listedNamesAreRedactedWhateverTheRule() {
        let redaction = Redaction(headers: ["X-Customer"], queryKeys: ["code"])
        #expect(redaction.redactsHeader("x-customer"))
        #expect(redaction.redactsQueryKey("CODE"))
        #expect(!redaction.redactsQueryKey("x-customer"))
    }
}
