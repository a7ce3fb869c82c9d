import EndpointRouter
import Foundation

/// One thing users come to a networking library for, run against the API and reported as one block:
///
/// ```
/// ✔ 3. Query parameters: the completed todos of user 1
///     → JSONPlaceholder.filteredTodos #1 GET https://jsonplaceholder.typicode.com/todos?completed=true&userId=1
///     ← 200, 865 bytes in 1.4 ms
///     = 12 completed todos of user 1: ids [1, 3, 4, 5, 6, 7, 8, 9, 11, 14, 16, 17]
/// ```
///
/// `→` and `←` are what a ``LoggingMiddleware`` added to the call saw go out and come back, secrets
/// redacted; `=` is what the scenario made of the answer.
struct Scenario: Sendable {
    /// What happened: the summary shown after `=`, and whether it is what the scenario expected.
    enum Outcome: Sendable {
        case passed(String)
        case failed(String)
    }

    let title: String
    /// Whether the request lines list the headers (redacted), for the scenario about headers.
    let showsHeaders: Bool
    /// Runs the calls, passing `wire` as the per-call middleware of each, and judges the answer.
    let run: @Sendable (_ wire: LoggingMiddleware) async -> Outcome

    init(_ title: String, showsHeaders: Bool = false, run: @escaping @Sendable (_ wire: LoggingMiddleware) async -> Outcome) {
        self.title = title
        self.showsHeaders = showsHeaders
        self.run = run
    }

    /// Runs the scenario, prints its block and answers whether it passed.
    func report(number: Int) async -> Bool {
        let lines = WireLines()
        let wire = LoggingMiddleware(includesHeaders: showsHeaders, includesBodies: true, sink: lines.sink)
        let outcome = await run(wire)
        let (mark, summary, passed) =
            switch outcome {
            case .passed(let summary): ("✔", summary, true)
            case .failed(let reason): ("✘", reason, false)
            }
        print("\(mark) \(number). \(title)")
        for line in lines.all { print("    \(line)") }
        print("    = \(summary)\n")
        return passed
    }
}
