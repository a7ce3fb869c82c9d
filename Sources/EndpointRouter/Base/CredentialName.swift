/// The one rule that says whether a header name or a query key looks like it carries a credential,
/// so its value is redacted by default wherever a request is shown: logs, cURL commands,
/// recordings, `description` and `dump`.
///
/// A name matches when, compared case-insensitively, it
/// - contains `authorization`, `cookie`, `token`, `secret`, `password`, `passwd`, `session`,
///   `signature`, `credential` or `key` (`X-Api-Key`, `apiKey`, `access_token`, `X-Amz-Signature`,
///   `AWSAccessKeyId`, `Set-Cookie`, `X-Amz-Credential`);
/// - or is `sig` (Azure's shared access signature, listed by OpenTelemetry for `url.full`) or
///   `auth` (Firebase's `?auth=`): short names a substring rule would find inside `design` or `author`.
///
/// Substrings rather than whole words, because credentials hide inside compounds (`apikey`,
/// `XApiKey`, `x-goog-api-key`) that no word list anticipates, and a value hidden by mistake costs a
/// debugging session while one shown by mistake costs a credential. The exception is a short list
/// of ordinary words that contain a family (`monkey`, `keyboard`, `keyword`, `possession`, …), taken
/// out before matching, so `X-Monkey` and `keyboard` stay visible while `x-monkey-key` does not.
/// `Keep-Alive` never matched: it does not contain `key`.
package enum CredentialName {
    /// The substrings that make a name look secret.
    private static let families = [
        "authorization", "cookie", "token", "secret", "password", "passwd", "session", "signature", "credential", "key",
    ]
    /// Whole names that look secret although they are too short to search for inside others.
    private static let exactNames: Set<String> = ["sig", "auth"]
    /// Ordinary words that contain a family without meaning one; removed before the families are
    /// searched, so only the rest of the name can match.
    private static let ordinaryWords = [
        "keyboard", "keyword", "keynote", "keystone", "keystroke", "keypad", "keyframe", "hotkey", "turnkey",
        "monkey", "donkey", "hockey", "jockey", "turkey", "whiskey", "lackey", "possession", "obsession",
    ]

    /// Whether `name` (any casing) looks like it carries a credential; see the type's rule.
    package static func looksSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if exactNames.contains(lowered) { return true }
        guard families.contains(where: { lowered.contains($0) }) else { return false }
        var rest = lowered
        for word in ordinaryWords where rest.contains(word) {
            // A separator, so the text on either side cannot join into a family across the gap.
            rest = rest.replacingOccurrences(of: word, with: " ")
        }
        return families.contains { rest.contains($0) }
    }

    /// Whether the value of `name` (any casing) is hidden: it is listed (lower-cased names), or it is
    /// one of the credential headers when `isHeader` (always hidden, the opt-out does not apply), or
    /// it looks secret and is not revealed (lower-cased names).
    package static func isRedacted(_ name: String, listed: Set<String>, revealed: Set<String>, isHeader: Bool) -> Bool {
        let lowered = name.lowercased()
        if listed.contains(lowered) { return true }
        if isHeader, SensitiveHeaders.credentials.contains(lowered) { return true }
        return !revealed.contains(lowered) && looksSecret(lowered)
    }
}
