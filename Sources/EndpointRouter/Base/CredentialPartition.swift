import Foundation

/// The credential a request carries, reduced to a key part that tells users apart without holding
/// their secrets: what keeps the cache and the de-duplication from answering one user with another
/// user's response. The one place that says which headers count as a credential for a stored or
/// shared answer: ``SensitiveHeaders/credentials`` plus the names a caller adds (those an
/// ``AuthorizationMiddleware`` put a credential in and those the endpoint declared sensitive, both in
/// `EndpointOptions.credentialHeaders`).
package struct CredentialPartition: Sendable {
    /// The HMAC key: random per instance and kept in memory only, so a key part reveals nothing about
    /// the credential (not even whether two processes saw the same one) and cannot be recomputed by
    /// anyone who reads it on disk.
    private let secret: [UInt8]

    /// A partition keyed with 32 fresh random bytes from the system's secure generator, drawn as four
    /// 64-bit words (a byte at a time was 32 `getrandom` calls).
    package init() {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        secret = bytes
    }

    /// The credential headers of `request`: lower-cased names with their values, sorted, one pair
    /// per field. `extra` adds names (any casing) to ``SensitiveHeaders/credentials``.
    package static func credentials(of request: OutgoingRequest, extra: Set<String>) -> [(name: String, value: String)] {
        let extra = Set(extra.map { $0.lowercased() })
        return request.headers.fields
            .filter { SensitiveHeaders.contains($0.name, extra: extra) }
            .map { (name: $0.name.lowercased(), value: $0.value) }
            .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
    }

    /// `url` without the query items named in `queryItems` (an ``AuthorizationMiddleware``'s
    /// `Credential.query`), and those items, for the partition. `url` itself when there are none.
    package static func splitCredentials(of url: URL, queryItems: Set<String>) -> (url: URL, credentials: [(name: String, value: String)]) {
        guard !queryItems.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return (url, []) }
        let (kept, taken) = Credential.splitQuery(components.percentEncodedQuery, taking: queryItems)
        guard !taken.isEmpty else { return (url, []) }
        components.percentEncodedQuery = kept.isEmpty ? nil : kept.joined(separator: "&")
        // A query item's name cannot clash with a header's: "?" is not allowed in a header name.
        return (components.url ?? url, taken.map { ("?" + $0.name, $0.value) })
    }

    /// `""` for a request without credentials, else the hex HMAC-SHA256 of its credential pairs
    /// (headers, and `queryCredentials`: the query items ``splitCredentials(of:queryItems:)`` took
    /// out of its URL) under this instance's secret: equal for the same credentials, unrelated otherwise.
    package func key(for request: OutgoingRequest, extra: Set<String>, queryCredentials: [(name: String, value: String)] = []) -> String {
        let pairs = Self.credentials(of: request, extra: extra) + queryCredentials
        guard !pairs.isEmpty else { return "" }
        // Length-prefixed, so that moving bytes between a name and a value changes the message.
        var message: [UInt8] = []
        for pair in pairs {
            for part in [pair.name, pair.value] {
                message += Array("\(part.utf8.count):".utf8) + Array(part.utf8)
            }
        }
        return HMACSHA256.hex(HMACSHA256.authenticationCode(key: secret, message: message))
    }
}
