import Foundation

/// One stored response: what it answers (URL and the request headers its `Vary` names), the
/// response without `Set-Cookie`, and when it was received, for computing its age.
struct CachedResponse: Codable, Sendable {
    /// `"GET <absolute URL>"`, then the credential partition if any (`ResponseCache.key(for:credentialHeaders:)`).
    let key: String
    var statusCode: Int
    var headerNames: [String]
    var headerValues: [String]
    var url: URL?
    /// When the response (or the 304 that refreshed it) arrived, by the wall clock, so the age
    /// stays right across launches for the disk cache.
    var receivedAt: Date
    /// The `Age` the server reported on arrival, in seconds.
    var initialAge: Double
    /// The lower-cased request header names listed in `Vary` and the values the request had
    /// (`nil` when it had none).
    var varying: [String: String?]
    /// The body; kept out of the encoded metadata on disk, where it follows it as raw bytes.
    var body = Data()

    private enum CodingKeys: String, CodingKey {
        case key, statusCode, headerNames, headerValues, url, receivedAt, initialAge, varying
    }

    var headers: HeaderFields {
        get { HeaderFields(zip(headerNames, headerValues).map { HeaderFields.Field(name: $0.0, value: $0.1) }) }
        set {
            headerNames = newValue.fields.map(\.name)
            headerValues = newValue.fields.map(\.value)
        }
    }

    /// Bytes this entry counts against a budget: the body, the headers and a fixed allowance.
    var cost: Int {
        body.count + zip(headerNames, headerValues).reduce(256) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }
    }

    var hasValidators: Bool { headers.contains("ETag") || headers.contains("Last-Modified") }

    /// The longest age written or believed, in seconds (about 31 years): keeps the arithmetic finite
    /// whatever a server sends.
    static let longestAge: Double = 1_000_000_000

    /// The `Age` a response arrived with: whole non-negative seconds as RFC 9111 writes it; anything
    /// else (`nan`, `1e400`, `-5`) counts as `0`.
    static func initialAge(of headers: HeaderFields) -> Double {
        guard let text = headers["Age"], let seconds = Int(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return 0 }
        return min(Double(seconds), longestAge)
    }

    /// Seconds since the origin produced it (RFC 9111 §4.2.3, simplified for a client cache).
    func age(at now: Date) -> Double {
        initialAge + max(0, now.timeIntervalSince(receivedAt))
    }

    /// Seconds it stays fresh: `max-age`, else `Expires` minus `Date`; `0` with `no-cache` or neither.
    var freshnessLifetime: Double {
        let control = CacheControl(headers)
        if control.noCache { return 0 }
        if let maxAge = control.maxAge { return Double(maxAge) }
        guard let expiresText = headers["Expires"] else { return 0 }
        guard let expires = HTTPDate.parse(expiresText) else { return 0 }  // invalid means already expired
        let date = headers["Date"].flatMap(HTTPDate.parse) ?? receivedAt
        return max(0, expires.timeIntervalSince(date))
    }

    func isFresh(at now: Date) -> Bool {
        age(at: now) < freshnessLifetime
    }

    /// Whether `request` carries the same values for the headers `Vary` names.
    func matches(_ request: OutgoingRequest) -> Bool {
        varying.allSatisfy { name, value in request.headers[name] == value }
    }

    /// The response for the caller: the stored one, with its current `Age`.
    func response(at now: Date) -> IncomingResponse {
        var headers = headers
        headers["Age"] = String(Int(min(age(at: now), Self.longestAge)))
        return IncomingResponse(statusCode: statusCode, headers: headers, body: body, url: url)
    }
}
