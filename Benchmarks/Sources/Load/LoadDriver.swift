import Foundation

/// What one timed window measured: every request's latency, sorted, and how long the window took.
struct LoadWindow: Sendable {
    var latencies: [UInt64]
    var elapsed: Double
}

/// Runs `call` from `inFlight` workers until `seconds` have passed; each worker records the
/// latency of each request it finished (nanoseconds, monotonic clock), and waits `pause` after it
/// when there is one (not counted in the latency). Requests started before the end and finished
/// after it count: the window ends when the last worker stops.
func drive(
    _ call: @escaping @Sendable () async throws -> Void, inFlight: Int, pause: Duration? = nil, seconds: Double
) async throws -> LoadWindow {
    let start = DispatchTime.now().uptimeNanoseconds
    let end = start + UInt64(seconds * 1e9)
    let latencies = try await withThrowingTaskGroup(of: [UInt64].self) { group in
        for _ in 0..<inFlight {
            group.addTask {
                var own: [UInt64] = []
                own.reserveCapacity(Int(seconds * 20_000) / inFlight + 16)
                var now = DispatchTime.now().uptimeNanoseconds
                while now < end {
                    try await call()
                    let done = DispatchTime.now().uptimeNanoseconds
                    own.append(done - now)
                    now = done
                    if let pause {
                        try await Task.sleep(for: pause)
                        now = DispatchTime.now().uptimeNanoseconds
                    }
                }
                return own
            }
        }
        var all: [UInt64] = []
        for try await own in group { all += own }
        return all
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return LoadWindow(latencies: latencies.sorted(), elapsed: elapsed)
}

/// What this process has used so far, every thread counted (the client's loops, its event loops,
/// the decoding): CPU time in seconds, user plus system, and minor page faults (memory the kernel
/// had to map in again: a heap given back and reused, issue 41).
func processUsage() -> (cpuSeconds: Double, minorFaults: Int) {
    var usage = rusage()
    #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return (seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_minflt)
}

/// One process's result, one JSON line.
struct LoadReport: Encodable {
    var side: String
    var scenario: String
    var inFlight: Int
    var requests: Int
    var seconds: Double
    var requestsPerSecond: Double
    var p50Microseconds: Double
    var p99Microseconds: Double
    var cpuMicrosecondsPerRequest: Double
    var minorFaultsPerRequest: Double

    init(side: String, scenario: String, inFlight: Int, window: LoadWindow, cpuSeconds: Double, minorFaults: Int) {
        self.side = side
        self.scenario = scenario
        self.inFlight = inFlight
        requests = window.latencies.count
        seconds = window.elapsed
        requestsPerSecond = Double(requests) / max(window.elapsed, 1e-9)
        func percentile(_ p: Double) -> Double {
            guard !window.latencies.isEmpty else { return 0 }
            let index = min(window.latencies.count - 1, Int((Double(window.latencies.count) * p).rounded(.up)) - 1)
            return Double(window.latencies[max(index, 0)]) / 1000
        }
        p50Microseconds = percentile(0.50)
        p99Microseconds = percentile(0.99)
        cpuMicrosecondsPerRequest = requests == 0 ? 0 : cpuSeconds * 1e6 / Double(requests)
        minorFaultsPerRequest = requests == 0 ? 0 : Double(minorFaults) / Double(requests)
    }
}
