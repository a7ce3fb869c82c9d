import EndpointRouter
import Foundation

/// The errors a ``StubTransport`` raises about its own setup, written for the person reading the
/// test failure: what was asked, what the stub knows, and what to change.
enum StubDiagnostics {
    /// The error for a request that no route matched.
    ///
    /// ```text
    /// StubTransport has no route for GET /todos/7?x=1 (https://api.example.com/todos/7?x=1).
    /// Routes, in the order they are tried:
    ///   1. POST /todos: method is GET, the route wants POST
    ///   2. GET /todos/:id?x=2: query item 'x' is '1', the route wants '2'
    /// Add a route that matches, e.g. stub.on(.get, "/todos/7", respond: ...), or fix the request.
    /// ```
    static func unmatched(_ request: CapturedRequest, routes: [(summary: String, reason: String)]) -> HTTPClientError {
        var lines = ["StubTransport has no route for \(request.summary) (\(Redaction.standard.url(request.url)))."]
        if routes.isEmpty {
            lines.append("The stub has no routes.")
        } else {
            lines.append("Routes, in the order they are tried:")
            for (index, route) in routes.enumerated() {
                lines.append("  \(index + 1). \(route.summary): \(route.reason)")
            }
        }
        lines.append(
            """
            Add a route that matches, e.g. stub.on(.\(request.method), "\(request.path)", respond: ...), \
            or fix the request if it is not the one the test expects.
            """)
        return .transport(.resourceUnavailable, lines.joined(separator: "\n"), url: request.url)
    }

    /// The error for every request while a route's pattern cannot work as written.
    static func invalidRoute(_ route: Route, problem: String, number: Int, request: CapturedRequest) -> HTTPClientError {
        let text = """
            StubTransport cannot answer \(request.summary): route \(number) (\(route.summary)) has an invalid \
            path pattern: \(problem). Fix the pattern where the route is registered.
            """
        return .transport(.resourceUnavailable, text, url: request.url)
    }

    /// The error for a request a scripted route matched after its script ran out.
    ///
    /// ```text
    /// StubTransport's route 1 (GET /todos/1 [script]) matched GET /todos/1, its request 3, but its script had
    /// 2 answers and they have all been given. Add answers to the script, or pass then: .repeatLast to
    /// answer every later request with the last one.
    /// ```
    static func scriptExhausted(_ route: Route, number: Int, answers: Int, requestNumber: Int, request: CapturedRequest)
        -> HTTPClientError
    {
        let had =
            switch answers {
            case 0: "its script has no answers"
            case 1: "its script had 1 answer and it has been given"
            default: "its script had \(answers) answers and they have all been given"
            }
        let text = """
            StubTransport's route \(number) (\(route.summary)) matched \(request.summary), its request \(requestNumber), \
            but \(had). Add answers to the script, or pass then: .repeatLast to answer every later request \
            with the last one.
            """
        return .transport(.resourceUnavailable, text, url: request.url)
    }
}
