import EndpointRouter
import Foundation

/// One ``StubTransport`` rule: what a request must look like, and how to answer it.
struct Route: Sendable {
    enum Verdict {
        case matched(parameters: [String: String])
        /// Why not, in words that point at the difference.
        case rejected(String)
    }

    let method: RequestMethod?
    let pattern: PathPattern
    let query: [String: String]
    let headers: [String: String]
    /// Where a matched request's answer comes from.
    enum Answers: Sendable {
        /// Computed from the request, every time.
        case handler(@Sendable (StubbedRequest) async -> StubResponse)
        /// Taken in order from a script, one per request.
        case script(StubScript)
    }

    let body: (@Sendable (Data) -> Bool)?
    let answers: Answers

    /// A query written into the pattern (`"/todos?userId=1"`) joins `query`; `query` wins on a clash.
    init(
        method: RequestMethod?, pattern: String, query: [String: String], headers: [String: String],
        body: (@Sendable (Data) -> Bool)?, answers: Answers
    ) {
        var path = Substring(pattern)
        var required = query
        if let question = path.firstIndex(of: "?") {
            for pair in RequestTarget.queryPairs(String(path[path.index(after: question)...]))
            where required[pair.name] == nil {
                required[pair.name] = pair.value
            }
            path = path[..<question]
        }
        self.method = method
        self.pattern = PathPattern(String(path))
        self.query = required
        self.headers = headers
        self.body = body
        self.answers = answers
    }

    func evaluate(_ request: CapturedRequest) -> Verdict {
        if let method, method != request.method {
            return .rejected("method is \(request.method.rawValue), the route wants \(method.rawValue)")
        }
        guard let parameters = pattern.match(RequestTarget.segments(ofEncodedPath: request.path)) else {
            return .rejected("path \(request.path) does not match \(pattern)")
        }
        for (name, expected) in query.sorted(by: { $0.key < $1.key }) {
            let values = request.queryValues(for: name)
            if values.isEmpty { return .rejected("query item '\(name)' is missing") }
            if !values.contains(expected) {
                let shown = values.map { "'\($0)'" }.joined(separator: ", ")
                return .rejected("query item '\(name)' is \(shown), the route wants '\(expected)'")
            }
        }
        for (name, expected) in headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            guard let actual = request.headers[name] else { return .rejected("header '\(name)' is missing") }
            if actual != expected {
                // Credentials stay out of test logs.
                if Redaction.standard.redactsHeader(name) {
                    return .rejected("header '\(name)' has a different value than the route wants")
                }
                return .rejected("header '\(name)' is '\(actual)', the route wants '\(expected)'")
            }
        }
        if let body, !body(request.body) {
            return .rejected("the body predicate returned false (body: \(Self.preview(request)))")
        }
        return .matched(parameters: parameters)
    }

    /// `GET /todos/:id?userId=1 [header Accept: application/json] [body predicate]`.
    var summary: String {
        var text = "\(method?.rawValue ?? "ANY") \(pattern)"
        if !query.isEmpty {
            text += "?" + query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        }
        for (name, value) in headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let shown = Redaction.standard.redactsHeader(name) ? "…" : value
            text += " [header \(name): \(shown)]"
        }
        if body != nil { text += " [body predicate]" }
        if case .script = answers { text += " [script]" }
        return text
    }

    /// A binary body shows only its size, whose bytes would be noise in a test log; a file body is
    /// not read, as it may be large.
    private static func preview(_ request: CapturedRequest) -> String {
        if let file = request.bodyFile { return "the file \(file.path), not read" }
        let body = request.body
        guard !body.isEmpty else { return "empty" }
        guard String(data: body, encoding: .utf8) != nil else { return "\(body.count) bytes" }
        return "'\(BodyPreview.text(of: body))'"
    }
}
