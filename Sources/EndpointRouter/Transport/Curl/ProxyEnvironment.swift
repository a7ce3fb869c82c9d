#if os(Linux)
    /// The proxies the process environment names, read once when a ``CurlTransport`` is made.
    ///
    /// The variables and their precedence are libcurl's, which URLSession on Linux leaves to libcurl:
    /// `http_proxy` in lower case only (an `HTTP_PROXY` can be set by a CGI server from a request's
    /// `Proxy:` header), `https_proxy` before `HTTPS_PROXY`, `all_proxy`/`ALL_PROXY` for a scheme
    /// with none of its own, and `no_proxy`/`NO_PROXY`. The transport then sets the result on each
    /// transfer itself, so libcurl never reads the environment while the app may be changing it, and
    /// a test can hand in an environment of its own.
    struct ProxyEnvironment: Sendable {
        var http: String?
        var https: String?
        var noProxy: String?

        init(_ environment: [String: String]) {
            func first(_ names: String...) -> String? {
                names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
            }
            let all = first("all_proxy", "ALL_PROXY")
            http = first("http_proxy") ?? all
            https = first("https_proxy", "HTTPS_PROXY") ?? all
            noProxy = first("no_proxy", "NO_PROXY")
        }

        /// The proxy for a URL of `scheme`, or `""`, which tells libcurl to use none.
        func proxy(forScheme scheme: String?) -> String {
            (scheme?.lowercased() == "https" ? https : http) ?? ""
        }
    }
#endif
