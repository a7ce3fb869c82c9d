import Foundation

/// What to blank out before a request or response is written anywhere a person or a file can read
/// it (logs, cURL commands, `description` and `dump`): header values, query values and JSON body
/// values, by name.
///
/// Safe by default: a header or query item whose name looks like a credential (`Authorization`,
/// `Cookie`, `X-Api-Key`, `access_token`, `X-Amz-Signature`, `sig`, …, see
/// ``redactsHeader(_:)``) is redacted without being listed. The credential headers
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`) are always redacted — the same
/// list the redirect follower strips on a redirect to another origin. Other names are added with
/// `headers` and `queryKeys`, and a name the rule hides by mistake is shown again with `revealing`.
/// Names compare case-insensitively: a secret under another casing is still a secret.
///
/// ```swift
/// let redaction = Redaction(queryKeys: ["code"], bodyKeys: ["password"], revealing: ["Idempotency-Key"])
/// let shown = redaction.url(URL(string: "https://me:pw@api.example.com/x?access_token=abc&code=42&page=2")!)
/// // "https://api.example.com/x?access_token=<redacted>&code=<redacted>&page=2"
/// ```
public struct Redaction: Sendable, Hashable {
    /// What a redacted value is replaced with.
    public static let placeholder = "<redacted>"

    /// Lower-cased names of the headers redacted whatever ``revealedNames`` says: the credential
    /// headers and the configured ones. Names that merely look like credentials are not listed here;
    /// ask ``redactsHeader(_:)``.
    public private(set) var headerNames: Set<String>
    /// Lower-cased names of the query items redacted whatever ``revealedNames`` says. Names that
    /// merely look like credentials are not listed here; ask ``redactsQueryKey(_:)``.
    public private(set) var queryKeys: Set<String>
    /// Lower-cased header names and query keys that look like credentials but are shown: the opt-out
    /// from the default rule, one name at a time. It never reveals the credential headers or a
    /// name listed in ``headerNames`` or ``queryKeys``.
    public let revealedNames: Set<String>
    /// Lower-cased keys whose values are redacted in JSON bodies (at any depth, in objects nested in
    /// objects and arrays) and in form-encoded bodies (together with ``queryKeys``).
    public let bodyKeys: Set<String>

    /// Creates a redaction; the credential headers and every name that looks like a credential are
    /// always included, unless revealed.
    ///
    /// - Parameters:
    ///   - headers: header names to redact besides those, e.g. `["X-Customer-Id"]`.
    ///   - queryKeys: query item names to redact besides those, e.g. `["code"]`.
    ///   - bodyKeys: JSON and form keys whose values are redacted, e.g. `["password", "refresh_token"]`.
    ///   - revealing: header names and query keys the default rule would hide but whose values are
    ///     not secret, e.g. `["Idempotency-Key"]`. The credential headers and names listed in
    ///     `headers` or `queryKeys` stay redacted.
    public init(
        headers: Set<String> = [], queryKeys: Set<String> = [], bodyKeys: Set<String> = [], revealing: Set<String> = []
    ) {
        headerNames = SensitiveHeaders.credentials.union(headers.map { $0.lowercased() })
        self.queryKeys = Set(queryKeys.map { $0.lowercased() })
        self.bodyKeys = Set(bodyKeys.map { $0.lowercased() })
        revealedNames = Set(revealing.map { $0.lowercased() })
    }

    /// The redaction `description` and `dump` of the library's types apply: the default rule, with
    /// nothing listed or revealed, because they have no configuration to read.
    package static let standard = Redaction()

    /// This redaction with `headers` and `queryKeys` (any casing) redacted too: the credentials one
    /// call carries under names of its own. Itself when both are empty, which is the common case.
    package func adding(headers: Set<String>, queryKeys: Set<String>) -> Redaction {
        guard !headers.isEmpty || !queryKeys.isEmpty else { return self }
        var redaction = self
        redaction.headerNames.formUnion(headers.map { $0.lowercased() })
        redaction.queryKeys.formUnion(queryKeys.map { $0.lowercased() })
        return redaction
    }

    /// Whether the value of the header `name` (any casing) is redacted: it is a credential header,
    /// is listed, or looks like a credential and is not revealed.
    ///
    /// A name looks like a credential when it contains `authorization`, `cookie`, `token`, `secret`,
    /// `password`, `passwd`, `session`, `signature`, `credential` or `key` (ordinary words such as
    /// `monkey` and `keyboard` excepted), or is `sig` or `auth`.
    ///
    /// ```swift
    /// let apiKey = Redaction().redactsHeader("X-Api-Key")     // true
    /// let keepAlive = Redaction().redactsHeader("Keep-Alive")  // false
    /// let revealed = Redaction(revealing: ["Idempotency-Key"]).redactsHeader("Idempotency-Key")  // false
    /// ```
    public func redactsHeader(_ name: String) -> Bool {
        CredentialName.isRedacted(name, listed: headerNames, revealed: revealedNames, isHeader: true)
    }

    /// Whether the value of the query item `name` (any casing) is redacted: it is listed, or looks
    /// like a credential (the rule of ``redactsHeader(_:)``) and is not revealed.
    ///
    /// ```swift
    /// let apiKey = Redaction().redactsQueryKey("api_key")  // true
    /// let page = Redaction().redactsQueryKey("page")       // false
    /// ```
    public func redactsQueryKey(_ name: String) -> Bool {
        CredentialName.isRedacted(name, listed: queryKeys, revealed: revealedNames, isHeader: false)
    }

    /// `headers` with the value of every redacted field replaced by ``placeholder``; names, order
    /// and other values unchanged.
    public func headers(_ headers: HeaderFields) -> HeaderFields {
        HeaderFields(headers.fields.map { HeaderFields.Field(name: $0.name, value: shownValue(of: $0)) })
    }

    /// `field`'s value, or ``placeholder`` when ``redactsHeader(_:)`` hides it.
    package func shownValue(of field: HeaderFields.Field) -> String {
        redactsHeader(field.name) ? Self.placeholder : field.value
    }

    /// An encoded query (the text after `?`) with the values of the items ``redactsQueryKey(_:)``
    /// hides replaced by ``placeholder``; other items keep their exact text.
    package func query(_ encodedQuery: String) -> String {
        formEncoded(encodedQuery, redacting: redactsQueryKey)
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
        if let query { text += "?" + formEncoded(query, redacting: redactsQueryKey) }
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
    /// of the query keys ``redactsQueryKey(_:)`` hides replaced by ``placeholder`` (a form is a query
    /// sent as a body, so a key secret in one is secret in the other); other items keep their exact text.
    public func formBody(_ text: String) -> String {
        formEncoded(text) { bodyKeys.contains($0.lowercased()) || redactsQueryKey($0) }
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

    private func formEncoded(_ text: String, redacting redacts: (String) -> Bool) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let rawName = String(item.prefix { $0 != "=" })
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            return redacts(name) ? "\(rawName)=\(Self.placeholder)" : String(item)
        }.joined(separator: "&")
    }
}
