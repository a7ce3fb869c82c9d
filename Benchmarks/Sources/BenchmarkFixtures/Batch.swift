/// Requests per batch of the concurrent scenarios, and how many are in flight at once.
public let batchSize = 256
public let inFlight = 64

/// Runs `batchSize` requests, `inFlight` at a time: one iteration of a `conc-*` benchmark.
public func batch(_ request: @escaping @Sendable () async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<inFlight {
            group.addTask {
                for _ in 0..<(batchSize / inFlight) { await request() }
            }
        }
    }
}
