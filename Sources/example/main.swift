import EndpointRouter
import EndpointRouterTesting
import Foundation

// `swift run example` runs every scenario against a stub of the servers built from Fixtures/;
// `swift run example --host https://jsonplaceholder.typicode.com` runs them against the real ones.
// It exits 0 only when every scenario passed (the typed 404 passes when the 404 arrives), so CI
// can run it as a check.

/// Runs every scenario in order, printing one block each, and answers how many failed.
func runScenarios() async -> Int {
    var failed = 0
    for (index, scenario) in Scenario.all.enumerated() {
        let passed = await scenario.report(number: index + 1)
        if !passed { failed += 1 }
    }
    return failed
}

// Read the arguments before anything else, so a bad one stops the demo before it prints or sends.
_ = Settings.host
print(
    Settings.isOnline
        ? "EndpointRouter example — online: JSONPlaceholder at \(Settings.host), httpbin at \(Settings.httpbin), Stack Exchange\n"
        : "EndpointRouter example — offline: a stub answers from Fixtures/ (add --host URL to go online)\n")
let failed: Int
if Settings.isOnline {
    failed = await runScenarios()
} else {
    failed = await withTransport(OfflineServer.makeTransport()) { await runScenarios() }
}
let total = Scenario.all.count
print(failed == 0 ? "✔ all \(total) scenarios passed" : "✘ \(failed) of \(total) scenarios failed")
exit(failed == 0 ? 0 : 1)
