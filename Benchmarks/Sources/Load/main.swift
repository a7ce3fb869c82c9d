// Issue 41's load benchmark: one client side, one scenario, one protocol per process, for a fixed
// time with a fixed number of requests in flight (a closed loop: each worker sends its next request
// when the previous one is answered). Every request's latency is recorded, so the p50 and p99 are
// per request even at 256 in flight, which package-benchmark's iterations cannot give.
//
//   Load <side> <scenario> [seconds] [warm-up seconds]
//
// The server is `BENCH_BASE_URL` (plain, TLS or HTTP/2 nginx from `nginx.sh`), trusted through
// `BENCH_CA_FILE` when it is https. Prints one JSON object on stdout; `Benchmarks/load` runs every
// side × scenario × protocol and `load-table.py` turns the lines into ratios.
import BenchmarkFixtures
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3, let side = LoadSide(rawValue: arguments[1]), let scenario = LoadScenario(rawValue: arguments[2])
else {
    let sides = LoadSide.allCases.map(\.rawValue).joined(separator: "|")
    let scenarios = LoadScenario.allCases.map(\.rawValue).joined(separator: "|")
    FileHandle.standardError.write(Data("usage: Load \(sides) \(scenarios) [seconds] [warm-up seconds]\n".utf8))
    exit(2)
}
let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 3 : 3
let warmUp = arguments.count > 4 ? Double(arguments[4]) ?? 1 : 1

let call = side.call(for: scenario)
// The first request opens the connection (and the TLS session) outside the warm-up's clock.
do { try await call() } catch {
    FileHandle.standardError.write(Data("\(side.rawValue) \(scenario.rawValue): the first request failed: \(error)\n".utf8))
    exit(1)
}
do {
    _ = try await drive(call, inFlight: scenario.inFlight, pause: scenario.pause, seconds: warmUp)
    let start = processUsage()
    let window = try await drive(call, inFlight: scenario.inFlight, pause: scenario.pause, seconds: seconds)
    let end = processUsage()
    let report = LoadReport(
        side: side.rawValue, scenario: scenario.rawValue, inFlight: scenario.inFlight, window: window,
        cpuSeconds: end.cpuSeconds - start.cpuSeconds, minorFaults: end.minorFaults - start.minorFaults)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
    exit(0)
} catch {
    FileHandle.standardError.write(Data("\(side.rawValue) \(scenario.rawValue) failed: \(error)\n".utf8))
    exit(1)
}
