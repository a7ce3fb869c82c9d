/// The checked split of each `host` string seen (`("https://api.example.com:8080", "/base")`), so
/// that a request of a service re-parses its constant host with `URLComponents` once per process
/// instead of once per request (about 15 µs on swift-corelibs-foundation).
///
/// Only hosts that passed the checks are kept; a bad host is re-checked, and fails, every time.
/// Bounded: past `capacity` distinct hosts (hosts built per request, say) it starts over.
enum ParsedHosts {
    static let capacity = 64

    private static let cache = Locked([String: (origin: String, path: Substring)]())

    /// The split of `host`, from the cache or from `parse` (whose result is then cached).
    static func split(
        _ host: String,
        parse: () throws(HTTPClientError) -> (origin: String, path: Substring)
    ) throws(HTTPClientError) -> (origin: String, path: Substring) {
        if let cached = cache.withLock({ $0[host] }) { return cached }
        let parsed = try parse()
        cache.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[host] = parsed
        }
        return parsed
    }
}
