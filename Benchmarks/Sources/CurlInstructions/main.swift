// Issue 23: instructions per small call on CurlTransport against nginx, the library's
// `request(type:)` beside the raw libcurl multi loop (BenchmarkFixtures' RawLibcurl) and, as a
// diagnostic, the same loop under the transport's rules (`rules`: RawLibcurlUnderRules), counted by
// callgrind. `Benchmarks/instructions curl` runs it for two N and prints the difference per call, so
// start-up cost cancels out; with `--separate-threads=yes`, the loop thread's share too. Wall-clock
// figures for the same calls are EndToEnd's; this count is repeatable on a busy machine.
//
//   CurlInstructions library|raw|rules N sequential|concurrent|post|list100
//
// Needs BENCH_BASE_URL (nginx.sh). Not top-level await: valgrind cannot run dispatch's main-thread loop.
import BenchmarkFixtures
import Dispatch
import EndpointRouter
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3, ["library", "raw", "rules"].contains(arguments[0]), let count = Int(arguments[1]),
    ["sequential", "concurrent", "post", "list100"].contains(arguments[2])
else {
    print("usage: CurlInstructions library|raw|rules N sequential|concurrent|post|list100")
    exit(2)
}
let (side, scenario) = (arguments[0], arguments[2])

@Sendable func call() async {
    switch (side, scenario) {
    case ("library", "post"): _ = expectSuccess(await NginxOnCurl.create.request(type: Todo.self), "create")
    case ("library", "list100"): _ = expectSuccess(await NginxOnCurl.list100.request(type: [Todo].self), "list100")
    case ("library", _): _ = expectSuccess(await NginxOnCurl.small.request(type: Todo.self), "small")
    case ("rules", "post"): _ = await expectSuccess("create") { try await RawCurlCalls.create(on: .underRules) }
    case ("rules", "list100"):
        _ = await expectSuccess("list100") { try await RawCurlCalls.get(.list100, as: [Todo].self, on: .underRules) }
    case ("rules", _): _ = await expectSuccess("small") { try await RawCurlCalls.get(.small, as: Todo.self, on: .underRules) }
    case (_, "post"): _ = await expectSuccess("create") { try await RawCurlCalls.create() }
    case (_, "list100"): _ = await expectSuccess("list100") { try await RawCurlCalls.get(.list100, as: [Todo].self) }
    default: _ = await expectSuccess("small") { try await RawCurlCalls.get(.small, as: Todo.self) }
    }
}

let done = DispatchSemaphore(value: 0)
Task.detached {
    // Connections open and caches warm before the counted calls.
    for _ in 0..<20 { await call() }
    if scenario == "concurrent" {
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<64 { group.addTask { for _ in stride(from: lane, to: count, by: 64) { await call() } } }
        }
    } else {
        for _ in 0..<count { await call() }
    }
    done.signal()
}
done.wait()
print("\(side) \(scenario): \(count) calls")
