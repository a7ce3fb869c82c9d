import EndpointRouter
import Foundation

/// The file name a recording is stored under: `GET_todos_1_3fa9c2d1.http`.
///
/// Method and path make the name readable; the hash tells apart requests to the same path. It
/// covers the path, the query and the body, each after redaction (a file body by its contents),
/// whether the request carries a credential header, and deliberately not the host nor any header
/// value: a recording made against staging replays against production, and a different token in
/// `Authorization`, in a redacted query item (`?api_key=...`) or in a redacted JSON member
/// (`{"password": ...}`) still finds the same file.
///
/// Credentials count by presence, not by value. A request without any (`Authorization`,
/// `Proxy-Authorization`, `Cookie`, the recorder's redacted headers, the headers a middleware or the
/// endpoint declared sensitive) never replays what a signed-in request recorded, nor the reverse.
/// Two users' requests that differ only in their token do share a file: a name derived from the
/// value would either change with every rotated token (a fixed hash, which would also let anyone
/// holding the recordings test guesses of a weak secret) or with every process (a keyed one), and
/// replay could then never find it. Record each user's answers in a directory of their own.
///
/// What does not change the name between runs:
/// - the order of query items with different names (items are ordered by name only, so
///   `sort=name&sort=-date` and `sort=-date&sort=name`, which a server reads differently, stay apart);
/// - the key order and spacing of a JSON body (re-serialized with sorted keys);
/// - the boundary of a `multipart/form-data` body (random by default): such a body counts by its
///   parts, each one's header lines and bytes, in order.
enum RecordingKey {
    static let fileExtension = "http"

    /// The file name for `request` once `redaction` is applied.
    static func fileName(for request: OutgoingRequest, redaction: RecordingRedaction) -> String {
        let path = RequestTarget.encodedPath(of: request.url)
        let query = redaction.encodedQuery(RequestTarget.encodedQuery(of: request.url))
        let body: OutgoingRequest.Body? =
            switch request.body {
            case .data(let data): .data(redaction.jsonBody(data))
            case let other: other
            }
        let credentialed = !CredentialPartition.credentials(of: request, extra: redaction.extraHeaderNames).isEmpty
        let hash = digest(
            path: path, query: query, body: body, contentType: request.headers["Content-Type"], credentialed: credentialed)
        return "\(stem(method: request.method, path: path))_\(hash).\(fileExtension)"
    }

    /// `GET_todos_1`: the readable part, shared by every recording of one method and path.
    static func stem(method: RequestMethod, path: String) -> String {
        let segments = RequestTarget.segments(ofEncodedPath: path).joined(separator: "_")
        var slug = ""
        for scalar in segments.unicodeScalars {
            let keep = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == ".")
            if keep {
                slug.unicodeScalars.append(scalar)
            } else if !slug.hasSuffix("_") {
                slug += "_"
            }
        }
        // A leading dot would hide the file; a very long name would hit file system limits.
        slug = String(slug.drop { $0 == "_" || $0 == "." }.prefix(80))
        while slug.hasSuffix("_") { slug.removeLast() }
        return "\(method.rawValue)_\(slug.isEmpty ? "root" : slug)"
    }

    static func digest(path: String, query: String?, body: OutgoingRequest.Body?, contentType: String?, credentialed: Bool) -> String {
        var hasher = FNV1a()
        for segment in RequestTarget.segments(ofEncodedPath: path) { hasher.combine(field: segment) }
        hasher.combine(field: "?")
        // Sorted by name only, and stably: repeated items keep their order, which servers act on.
        let pairs = RequestTarget.queryPairs(query).enumerated()
            .sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element)
        for pair in pairs {
            hasher.combine(field: pair.name)
            hasher.combine(field: pair.value)
        }
        hasher.combine(field: "body")
        switch body {
        case .data(let data):
            if let parts = MultipartParts(data, contentType: contentType) {
                hasher.combine(field: "multipart")
                for part in parts.parts {
                    hasher.combine(bytesField: part.head)
                    hasher.combine(bytesField: part.content)
                }
            } else {
                hasher.combine(canonicalBody(data))
            }
        case .file(let file): hasher.combine(fileAt: file)
        case nil: break
        }
        // Only when present, so the names of recordings without credentials stay what they were.
        if credentialed { hasher.combine(field: "credentials") }
        return hasher.hex
    }

    /// JSON re-serialized with sorted keys; any other body as is.
    static func canonicalBody(_ body: Data) -> Data {
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
            let sorted = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else { return body }
        return sorted
    }
}
