import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the library follows redirects itself, since URLSession on Linux forwards `Authorization` and
/// cookies to any origin and drops the body of a 307/308.
struct RedirectPolicy: Sendable {
    /// Hops followed before giving up with `URLError.httpTooManyRedirects`.
    var maximumHops: Int

    /// Headers that must never reach another origin.
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// The request for the next hop, or `nil` when `response` is not a redirect to follow.
    ///
    /// - Throws: `.transport` when the redirect is unsafe or one too many.
    func nextRequest(after response: HTTPTransportResponse, to request: URLRequest,
                     hopsSoFar: Int) throws(HTTPClientError) -> URLRequest? {
        let status = response.statusCode
        guard [301, 302, 303, 307, 308].contains(status), let location = response.headers["Location"],
              let current = request.url else { return nil }
        guard let target = URL(string: location, relativeTo: current)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), target.host?.isEmpty == false else {
            throw .transport(.described(.badServerResponse, "the server redirected to '\(location)', which is not a valid URL", url: current))
        }
        guard scheme == "http" || scheme == "https" else {
            throw .transport(.described(.unsupportedURL, "the server redirected to a \(scheme) URL; only http and https are followed", url: current))
        }
        if current.scheme?.lowercased() == "https", scheme == "http" {
            throw .transport(.described(.secureConnectionFailed,
                                        "refused to follow a redirect from https to http (\(target.absoluteString)): it would send the request unencrypted",
                                        url: current))
        }
        guard hopsSoFar < maximumHops else {
            throw .transport(.described(.httpTooManyRedirects, "stopped after \(maximumHops) redirects; the server may be redirecting in a loop", url: current))
        }

        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        if status == 301 || status == 302 || status == 303, method != "GET", method != "HEAD" {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
        }
        if Origin(current) != Origin(target) {
            for name in Self.credentialHeaders {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }
}

/// Scheme, host and port: what decides whether credentials may follow a redirect.
struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}
