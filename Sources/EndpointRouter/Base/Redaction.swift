import Foundation

/// What to blank out before a request or response is written anywhere a person or a file can read
/// it (logs, cURL commands, recordings): header values, query values and JSON body values, by name.
///
/// The credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`) are always
/// redacted — the same list the redirect follower strips on a redirect to another origin — so what
/// counts as a secret is written once. Names compare case-insensitively: a secret under another
/// casing is still a secret.
///
/// ```swift
/// let redaction = Redaction(headers: ["X-API-Key"], queryKeys: ["access_token"], bodyKeys: ["password"])
/// let shown = redaction.url(URL(string: "https://me:pw@api.example.com/x?access_token=abc&page=2")!)
/// // "https://api.example.com/x?access_token=<redacted>&page=2"
/// ```
public struct Redaction: Sendable, Hashable {
    /// What a redacted value is replaced with.
    public static let placeholder = "<redacted>"

    /// Lower-cased names of the headers redacted: the credential headers and the configured ones.
    public private(set) var headerNames: Set<String>
    /// Lower-cased names of the query items whose values are redacted.
    public private(set) var queryKeys: Set<String>
    /// Lower-cased keys whose values are redacted in JSON bodies (at any depth, in objects nested in
    /// objects and arrays) and in form-encoded bodies (together with ``queryKeys``).
    public let bodyKeys: Set<String>

    /// Creates a redaction; the credential headers are always included.
    ///
    /// - Parameters:
    ///   - headers: header names to redact besides the credential headers, e.g. `["X-API-Key"]`.
    ///   - queryKeys: query item names whose values are redacted, e.g. `["access_token", "api_key"]`.
    ///   - bodyKeys: JSON and form keys whose values are redacted, e.g. `["password", "refresh_token"]`.
    public init(headers: Set<String> = [], queryKeys: Set<String> = [], bodyKeys: Set<String> = []) {
        headerNames = SensitiveHeaders.credentials.union(headers.map { $0.lowercased() })
        self.queryKeys = Set(queryKeys.map { $0.lowercased() })
        self.bodyKeys = Set(bodyKeys.map { $0.lowercased() })
    }

    /// This redaction with `headers` and `queryKeys` (any casing) redacted too: the credentials one
    /// call carries under names of its own. Itself when both are empty, which is the common case.
    package func adding(headers: Set<String>, queryKeys: Set<String>) -> Redaction {
        guard !headers.isEmpty || !queryKeys.isEmpty else { return self }
        var redaction = self
        redaction.headerNames.formUnion(headers.map { $0.lowercased() })
        redaction.queryKeys.formUnion(queryKeys.map { $0.lowercased() })
        return redaction
    }

    /// Whether the value of the header `name` (any casing) is redacted.
    public func redactsHeader(_ name: String) -> Bool {
        headerNames.contains(name.lowercased())
    }

    /// `headers` with the value of every redacted field replaced by ``placeholder``; names, order
    /// and other values unchanged.
    public func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(
            headers.fields.map { field in
                redactsHeader(field.name) ? HTTPHeaders.Field(name: field.name, value: Self.placeholder) : field
            })
    }

    /// `url` as text for people, with any user name and password removed and the values of the
    /// redacted query items replaced by ``placeholder``; every other character as it was.
    ///
    /// Text rather than a `URL`, because the placeholder's `<` and `>` are not allowed in one.
    public func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return Self.placeholder
        }
        components.user = nil
        components.password = nil
        let query = components.percentEncodedQuery
        let fragment = components.percentEncodedFragment
        components.percentEncodedQuery = nil
        components.percentEncodedFragment = nil
        var text = components.string ?? Self.placeholder
        if let query { text += "?" + formEncoded(query, keys: queryKeys) }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// `data` as JSON with the value of every key in ``bodyKeys`` (at any depth) replaced by
    /// ``placeholder``; `nil` when `data` is not JSON.
    ///
    /// The result is re-serialised, so spacing and key order may differ from the original.
    public func jsonBody(_ data: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return try? JSONSerialization.data(withJSONObject: redacted(object), options: [.fragmentsAllowed, .withoutEscapingSlashes])
    }

    /// An `application/x-www-form-urlencoded` body with the values of the keys in ``bodyKeys`` and
    /// ``queryKeys`` replaced by ``placeholder`` (a form is a query sent as a body, so a key secret
    /// in one is secret in the other); other items keep their exact text.
    public func formBody(_ text: String) -> String {
        formEncoded(text, keys: bodyKeys.union(queryKeys))
    }

    /// A body as text for people: JSON and form bodies redacted, anything else described by its
    /// size only (its content cannot be checked for secrets); `nil` for no body.
    ///
    /// - Parameters:
    ///   - data: the body bytes.
    ///   - contentType: the request's `Content-Type`, which says whether the body is a form.
    package func bodyText(_ data: Data, contentType: String?) -> String? {
        guard !data.isEmpty else { return nil }
        if let json = jsonBody(data) { return String(decoding: json, as: UTF8.self) }
        if contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true,
            let text = String(data: data, encoding: .utf8)
        {
            return formBody(text)
        }
        return nil
    }

    private func redacted(_ object: Any) -> Any {
        if let dictionary = object as? [String: Any] {
            return dictionary.reduce(into: [String: Any]()) { result, entry in
                result[entry.key] = bodyKeys.contains(entry.key.lowercased()) ? Self.placeholder : redacted(entry.value)
            }
        }
        if let array = object as? [Any] {
            return array.map(redacted)
        }
        return object
    }

    private func formEncoded(_ text: String, keys: Set<String>) -> String {
        guard !keys.isEmpty else { return text }
        return text.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let rawName = String(item.prefix { $0 != "=" })
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            return keys.contains(name.lowercased()) ? "\(rawName)=\(Self.placeholder)" : String(item)
        }.joined(separator: "&")
    }
}
