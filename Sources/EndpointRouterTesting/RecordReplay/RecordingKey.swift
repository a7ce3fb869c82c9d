import Foundation
import EndpointRouter

/// The file name a recording is stored under: `GET_todos_1_3fa9c2d1.http`.
///
/// Method and path make the name readable; the hash tells apart requests to the same path. It
/// covers the path, the query after redaction and the body (a file body by its contents), and
/// deliberately not the host nor any header: a recording made against staging replays against
/// production, and a different token in `Authorization` or in a redacted query item
/// (`?api_key=...`) still finds the same file.
/// Query items are sorted and JSON bodies re-serialized with sorted keys first, so neither
/// parameter order nor dictionary ordering changes the name between runs.
enum RecordingKey {
    static let fileExtension = "http"

    /// The file name for `request` once `redaction` is applied.
    static func fileName(for request: HTTPRequest, redaction: Redaction) -> String {
        let path = RequestTarget.encodedPath(of: request.url)
        let query = redaction.encodedQuery(RequestTarget.encodedQuery(of: request.url))
        let hash = digest(path: path, query: query, body: request.body)
        return "\(stem(method: request.method, path: path))_\(hash).\(fileExtension)"
    }

    /// `GET_todos_1`: the readable part, shared by every recording of one method and path.
    static func stem(method: HTTPMethod, path: String) -> String {
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

    static func digest(path: String, query: String?, body: HTTPRequest.Body?) -> String {
        var hasher = FNV1a()
        for segment in RequestTarget.segments(ofEncodedPath: path) { hasher.combine(field: segment) }
        hasher.combine(field: "?")
        let pairs = RequestTarget.queryPairs(query).sorted { ($0.name, $0.value) < ($1.name, $1.value) }
        for pair in pairs {
            hasher.combine(field: pair.name)
            hasher.combine(field: pair.value)
        }
        hasher.combine(field: "body")
        switch body {
        case .data(let data): hasher.combine(canonicalBody(data))
        case .file(let file): hasher.combine(fileAt: file)
        case nil: break
        }
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
