// Scenario 1 of issue 10: building a request with the library against hand-written Foundation code
// that produces the same request. Each measured iteration builds 1,000 requests (scaling .kilo), so
// the framework's own per-iteration cost stays out of the figures; `run` divides by 1,000.
import Benchmark
import BenchmarkFixtures
import EndpointRouter
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal],
        warmupIterations: isSmokeRun ? 0 : 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: iterations(200)
    )

    // POST, 3 query parameters, Authorization + Content-Type, 60-byte body from [String: Any].
    Benchmark("build/post-dictionary/library", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try BuildAPI.postDictionary.makeRequest().urlRequest) }
    }
    Benchmark("build/post-dictionary/library-makeRequest", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try BuildAPI.postDictionary.makeRequest()) }
    }
    Benchmark("build/post/manual-jsonserialization", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try ManualBuilding.postJSONSerialization()) }
    }

    // The same with an Encodable body.
    Benchmark("build/post-encodable/library", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try BuildAPI.postEncodable.makeRequest().urlRequest) }
    }
    Benchmark("build/post-encodable/library-makeRequest", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try BuildAPI.postEncodable.makeRequest()) }
    }
    Benchmark("build/post/manual-jsonencoder", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try ManualBuilding.postJSONEncoder()) }
    }

    // GET with 5 query parameters and Authorization.
    Benchmark("build/get-5-query/library", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try BuildAPI.getFiveQueryItems.makeRequest().urlRequest) }
    }
    Benchmark("build/get-5-query/library-makeRequest", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try BuildAPI.getFiveQueryItems.makeRequest()) }
    }
    Benchmark("build/get-5-query/manual", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try ManualBuilding.getFiveQueryItems()) }
    }
}
