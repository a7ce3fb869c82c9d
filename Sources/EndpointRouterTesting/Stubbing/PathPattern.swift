/// A route's path: literal segments, `:name` segments that capture one segment, and a final `*`
/// that captures the rest of the path.
///
/// Literal segments are percent-decoded before comparing, so `"/users/john doe"` and
/// `"/users/john%20doe"` are the same pattern, and both match the request path `/users/john%20doe`.
struct PathPattern: Sendable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest
    }

    /// The pattern as written, for messages.
    let description: String
    let segments: [Segment]
    /// Why the pattern cannot work as intended, or `nil`. Such a pattern still matches literally,
    /// but a stub refuses to serve with it (a silent mismatch would be a puzzle to debug).
    let problem: String?

    init(_ pattern: String) {
        description = pattern.hasPrefix("/") || pattern == "*" ? pattern : "/" + pattern
        var segments: [Segment] = []
        var problem: String?
        let raw = RequestTarget.segments(ofEncodedPath: pattern)
        for (index, text) in raw.enumerated() {
            if text == "*" {
                if index == raw.count - 1 {
                    segments.append(.rest)
                } else {
                    problem = "'*' matches the rest of the path, so it may only be the last segment"
                    segments.append(.literal(text))
                }
            } else if text.hasPrefix(":") {
                let name = String(text.dropFirst())
                if name.isEmpty {
                    problem = "a ':' segment needs a name, as in ':id'"
                    segments.append(.literal(text))
                } else {
                    segments.append(.parameter(name))
                }
            } else {
                segments.append(.literal(text))
            }
        }
        self.segments = segments
        self.problem = problem
    }

    /// The captured parameters when `path` (decoded segments) matches, else `nil`.
    ///
    /// A `:name` segment matches one non-empty segment; `*` matches zero or more and is captured
    /// under the name `"*"`, joined with `/`.
    func match(_ path: [String]) -> [String: String]? {
        var captures: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                captures["*"] = path.dropFirst(index).joined(separator: "/")
                return captures
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .parameter(let name):
                guard index < path.count, !path[index].isEmpty else { return nil }
                captures[name] = path[index]
            }
        }
        return path.count == segments.count ? captures : nil
    }
}
