import Foundation
import EndpointRouter

/// What a ``RecordingTransport`` blanks out before anything reaches the disk.
struct Redaction: Sendable {
    /// Headers that carry credentials in nearly every API, always redacted (lowercased).
    static let defaultHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    /// What a redacted value is replaced with.
    static let placeholder = "REDACTED"

    /// Lowercased header names, the defaults included.
    let headerNames: Set<String>
    /// Lowercased query item names.
    let queryKeys: Set<String>

    /// Names compare case-insensitively: redacting `api_key` also redacts `API_KEY`, because a
    /// secret written to disk under another casing is still a leak.
    init(headers: Set<String> = [], queryKeys: Set<String> = []) {
        headerNames = Self.defaultHeaderNames.union(headers.map { $0.lowercased() })
        self.queryKeys = Set(queryKeys.map { $0.lowercased() })
    }

    func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { field in
            headerNames.contains(field.name.lowercased())
                ? HTTPHeaders.Field(name: field.name, value: Self.placeholder) : field
        })
    }

    /// The encoded query with the values of redacted items replaced; other items keep their exact text.
    func encodedQuery(_ query: String?) -> String? {
        guard let query, !queryKeys.isEmpty else { return query }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let rawName = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let name = RequestTarget.queryPairs(String(rawName)).first?.name ?? String(rawName)
            return queryKeys.contains(name.lowercased()) ? "\(rawName)=\(Self.placeholder)" : String(item)
        }.joined(separator: "&")
    }
}
