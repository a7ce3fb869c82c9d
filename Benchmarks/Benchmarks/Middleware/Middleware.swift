// Scenario 3 of issue 10: what four no-op middlewares add to a request, with a transport that
// answers at once (no I/O), so only the library's pipeline is measured. 1,000 requests per
// measured iteration (scaling .kilo); `run` divides by 1,000.
import Benchmark
import BenchmarkFixtures
import EndpointRouter

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal],
        warmupIterations: isSmokeRun ? 0 : 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: iterations(100)
    )

    Benchmark("middleware/none", configuration: configuration) { benchmark async in
        for _ in benchmark.scaledIterations {
            blackHole(expectSuccess(await StubAPI.noMiddleware.request(type: Todo.self), "stub"))
        }
    }
    Benchmark("middleware/four-no-op", configuration: configuration) { benchmark async in
        for _ in benchmark.scaledIterations {
            blackHole(expectSuccess(await StubAPI.fourMiddlewares.request(type: Todo.self), "stub"))
        }
    }
}
