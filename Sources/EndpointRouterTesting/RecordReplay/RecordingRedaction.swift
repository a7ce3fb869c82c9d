import EndpointRouter
import Foundation

/// What a ``RecordingTransport`` blanks out before anything reaches the disk.
///
/// Apart from the library's `Redaction` (logs) because a recording must stay a valid request and
/// body after redaction: replay parses it and keys on it. Hence its placeholder, `REDACTED`, is
/// a word a URL query and a JSON string carry unescaped, where the logs' `<redacted>` is not.
struct RecordingRedaction: Sendable {
    /// What a redacted value is replaced with.
    static let placeholder = "REDACTED"

    /// Lowercased names of the headers redacted besides the library's credential headers.
    let extraHeaderNames: Set<String>
    /// Lowercased query item names.
    let queryKeys: Set<String>
    /// Lowercased keys of JSON object members, at any depth.
    let jsonKeys: Set<String>
    /// Lowercased header names and query keys shown although the library's rule finds them
    /// credential-looking (`Redaction`'s `revealing`, written once there).
    let revealedNames: Set<String>

    /// Names compare case-insensitively: redacting `api_key` also redacts `API_KEY`, because a
    /// secret written to disk under another casing is still a leak.
    init(headers: Set<String> = [], queryKeys: Set<String> = [], jsonKeys: Set<String> = [], revealing: Set<String> = []) {
        extraHeaderNames = Set(headers.map { $0.lowercased() })
        self.queryKeys = Set(queryKeys.map { $0.lowercased() })
        self.jsonKeys = Set(jsonKeys.map { $0.lowercased() })
        revealedNames = Set(revealing.map { $0.lowercased() })
    }

    /// This redaction with `headers` and `queryKeys` (any casing) redacted too: the headers and query
    /// items a middleware or the endpoint declared as credentials for one call.
    func adding(headers: Set<String>, queryKeys: Set<String>) -> RecordingRedaction {
        guard !headers.isEmpty || !queryKeys.isEmpty else { return self }
        return RecordingRedaction(
            headers: extraHeaderNames.union(headers), queryKeys: self.queryKeys.union(queryKeys), jsonKeys: jsonKeys,
            revealing: revealedNames)
    }

    /// The credential headers are always redacted, from the list the library also strips on a
    /// redirect to another origin, and so is every name the library's rule finds credential-looking
    /// unless revealed: logs and recordings can never disagree about what a secret is.
    func headers(_ headers: HeaderFields) -> HeaderFields {
        HeaderFields(
            headers.fields.map { field in
                CredentialName.isRedacted(field.name, listed: extraHeaderNames, revealed: revealedNames, isHeader: true)
                    ? HeaderFields.Field(name: field.name, value: Self.placeholder) : field
            })
    }

    /// Whether the query item `name` is redacted: listed, or credential-looking and not revealed.
    func redactsQueryKey(_ name: String) -> Bool {
        CredentialName.isRedacted(name, listed: queryKeys, revealed: revealedNames, isHeader: false)
    }

    /// The encoded query with the values of redacted items replaced; other items keep their exact text.
    func encodedQuery(_ query: String?) -> String? {
        guard let query else { return query }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let rawName = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let name = RequestTarget.queryPairs(String(rawName)).first?.name ?? String(rawName)
            return redactsQueryKey(name) ? "\(rawName)=\(Self.placeholder)" : String(item)
        }.joined(separator: "&")
    }

    /// `body` with the value of every member named in ``jsonKeys`` replaced by `"REDACTED"`, in
    /// objects at any depth and inside arrays, whatever the value was (a string, a number, a whole
    /// object). Every other byte is kept as it was. A body that is not JSON comes back unchanged.
    func jsonBody(_ body: Data) -> Data {
        guard !jsonKeys.isEmpty, !body.isEmpty, let document = JSONMembers(body) else { return body }
        var redacted = Data()
        var copied = 0
        for member in document.members where member.value.lowerBound >= copied && jsonKeys.contains(member.key.lowercased()) {
            redacted.append(body[(body.startIndex + copied)..<(body.startIndex + member.value.lowerBound)])
            redacted.append(Data("\"\(Self.placeholder)\"".utf8))
            copied = member.value.upperBound
        }
        guard copied > 0 else { return body }
        redacted.append(body[(body.startIndex + copied)...])
        return redacted
    }

    /// The keys whose value reads `"REDACTED"` in a recorded JSON body: what replay needs to redact
    /// a live request the same way before looking for its file.
    static func redactedJSONKeys(in body: Data) -> Set<String> {
        guard let document = JSONMembers(body) else { return [] }
        let placeholder = Array("\"\(Self.placeholder)\"".utf8)
        let bytes = [UInt8](body)
        return Set(document.members.filter { bytes[$0.value].elementsEqual(placeholder) }.map { $0.key.lowercased() })
    }
}
