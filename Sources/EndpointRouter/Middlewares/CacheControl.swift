import Foundation

/// The `Cache-Control` directives the cache acts on, read from one request's or response's headers.
struct CacheControl: Equatable {
    var maxAge: Int?
    var noStore = false
    var noCache = false
    var isPublic = false
    var isPrivate = false

    /// Directives are case-insensitive and may repeat over several fields; a malformed `max-age`
    /// is treated as `0` (stale), the safe reading. `s-maxage` is for shared caches and ignored.
    init(_ headers: HeaderFields) {
        for field in headers.values(for: "Cache-Control") {
            for directive in field.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                let value =
                    parts.count > 1
                    ? parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    : nil
                switch name {
                case "max-age": maxAge = max(0, value.flatMap { Int($0) } ?? 0)
                case "no-store": noStore = true
                case "no-cache": noCache = true  // with or without field names: revalidate everything
                case "public": isPublic = true
                case "private": isPrivate = true
                default: break
                }
            }
        }
    }
}
