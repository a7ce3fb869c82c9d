import Foundation

/// Follows redirects above the transport, so every transport gets the same rules (see
/// ``RedirectPolicy``): a transport performs one exchange and returns a `3xx` as it is.
struct RedirectFollower: Sendable {
    let policy: RedirectPolicy

    /// Headers that describe the body, dropped together with it.
    static let bodyHeaders: Set<String> = ["content-type", "content-encoding", "content-language", "content-location", "digest"]

    /// Sends `request` with `exchange`, then each redirect it leads to, and returns the final response.
    func follow(
        _ request: OutgoingRequest,
        exchange: (OutgoingRequest) async throws(HTTPClientError) -> IncomingResponse
    ) async throws(HTTPClientError) -> IncomingResponse {
        var current = request
        var hops = 0
        while true {
            let response = try await exchange(current)
            guard policy.maximumHops > 0, let next = try nextRequest(after: response, to: current, hopsSoFar: hops) else {
                return response
            }
            current = next
            hops += 1
        }
    }

    /// The request for the next hop, or `nil` when `response` is not a redirect to follow.
    ///
    /// - Throws: `.transport` when the redirect is unsafe, not a URL, or one too many.
    func nextRequest(after response: IncomingResponse, to request: OutgoingRequest, hopsSoFar: Int) throws(HTTPClientError)
        -> OutgoingRequest?
    {
        let status = response.statusCode
        guard [301, 302, 303, 307, 308].contains(status), let location = response.headers["Location"] else { return nil }
        let current = request.url
        let target = try Self.resolve(location, against: current)
        if current.scheme?.lowercased() == "https", target.scheme == "http" {
            throw .transport(
                .secureConnectionFailed,
                "refused to follow a redirect from https to http (\(RedactedURL.text(of: target))): it would send the request unencrypted",
                url: current)
        }
        guard hopsSoFar < policy.maximumHops else {
            throw .transport(
                .httpTooManyRedirects,
                "stopped after \(policy.maximumHops) redirects; the server may be redirecting in a loop", url: current)
        }

        var next = request
        next.url = target
        let becomesGet = status == 303 ? request.method != .head : (status == 301 || status == 302) && request.method == .post
        if becomesGet {
            next.method = .get
            next.body = nil
            next.headers = HeaderFields(next.headers.fields.filter { !Self.bodyHeaders.contains($0.name.lowercased()) })
        }
        if Origin(current) != Origin(target) {
            next.headers = HeaderFields(
                next.headers.fields.filter {
                    !SensitiveHeaders.contains($0.name, extra: policy.sensitiveHeaders)
                })
        }
        return next
    }

    /// The absolute http(s) URL a reference from the server names (a redirect's `Location`, a
    /// `Link` header's target), scheme lower-cased and fragment dropped. `subject` begins the error
    /// texts; they name `failingURL` (`base` when `nil`).
    static func resolve(
        _ reference: String, against base: URL, failingURL: URL? = nil, subject: String = "the server redirected to"
    ) throws(HTTPClientError) -> URL {
        let failingURL = failingURL ?? base
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let resolved = URL(string: trimmed, relativeTo: base)?.absoluteURL,
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), components.host?.isEmpty == false
        else {
            // Quoted redacted: it may carry userinfo or query secrets, and error texts end up in logs.
            let shown = RequestChecks.printable(RedactedURL.text(of: String(reference.prefix(200))))
            throw .transport(.badServerResponse, "\(subject) '\(shown)', which is not a valid URL", url: failingURL)
        }
        guard scheme == "http" || scheme == "https" else {
            throw .transport(.unsupportedURL, "\(subject) a \(scheme) URL; only http and https are followed", url: failingURL)
        }
        components.scheme = scheme
        components.fragment = nil
        guard let url = components.url else {
            throw .transport(.badServerResponse, "\(subject) a URL that cannot be rebuilt", url: failingURL)
        }
        return url
    }
}
