import Foundation

/// Scheme, host and port: what decides whether credentials may go along with a request.
package struct Origin: Hashable, Sendable {
    package let scheme: String
    package let host: String
    package let port: Int

    package init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}
