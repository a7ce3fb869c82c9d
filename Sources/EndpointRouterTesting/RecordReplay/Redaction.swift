import Foundation
import EndpointRouter

/// What a ``RecordingTransport`` blanks out before anything reaches the disk.
struct Redaction: Sendable {
    /// What a redacted value is replaced with.
    static let placeholder = "REDACTED"

    /// Lowercased names of the headers redacted besides the library's credential headers.
    let extraHeaderNames: Set<String>
    /// Lowercased query item names.
    let queryKeys: Set<String>

    /// Names compare case-insensitively: redacting `api_key` also redacts `API_KEY`, because a
    /// secret written to disk under another casing is still a leak.
    init(headers: Set<String> = [], queryKeys: Set<String> = []) {
        extraHeaderNames = Set(headers.map { $0.lowercased() })
        self.queryKeys = Set(queryKeys.map { $0.lowercased() })
    }

    /// The credential headers are always redacted, from the list the library also strips on a
    /// redirect to another origin, so the two can never disagree about what a secret is.
    func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { field in
            SensitiveHeaders.contains(field.name, extra: extraHeaderNames)
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
