// Scenarios 2 and 4 of issue 10: the library with its default transport (URLSessionTransport)
// against raw `URLSession.shared` + one `JSONDecoder`, and (issue 15) against a Get-style
// hand-written client on the same transport (`GetStyleClient`), all against the benchmark nginx
// (`BENCH_BASE_URL`, started by `run` or `nginx.sh`). One iteration is one request, so the
// wall-clock percentiles are per-request latencies, except `conc-small`, whose iteration is a batch
// of 256 requests with 64 in flight. Each benchmark runs in its own process (peak RSS is its own).
import Benchmark
import BenchmarkFixtures
import EndpointRouter
import Foundation

/// Where the download benchmarks write; one file per process, removed at the end.
let downloadFile = FileManager.default.temporaryDirectory
    .appendingPathComponent("endpointrouter-bench-\(ProcessInfo.processInfo.processIdentifier).bin")

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [
        .wallClock, .cpuTotal, .throughput, .peakMemoryResident,
        .peakMemoryResidentDelta, .mallocCountTotal,
    ]
    func sequential(_ count: Int, seconds: Int) -> Benchmark.Configuration {
        .init(
            metrics: metrics, warmupIterations: isSmokeRun ? 1 : max(5, count / 10), maxDuration: .seconds(seconds),
            maxIterations: iterations(count))
    }

    // (a) GET + decode of ~200 B, one request at a time.
    Benchmark("e2e/seq-small/library", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(expectSuccess(await NginxAPI.small.request(type: Todo.self), "small"))
    }
    Benchmark("e2e/seq-small/urlsession", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw small") { try await RawURLSession.get(.small, as: Todo.self) })
    }
    Benchmark("e2e/seq-small/get-style", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("get-style small") { try await GetStyleClient.nginx.send("small.json", as: Todo.self) })
    }

    // (b) the same, 64 in flight.
    let concurrent = Benchmark.Configuration(metrics: metrics, warmupIterations: 2, maxDuration: .seconds(5), maxIterations: iterations(30))
    Benchmark("e2e/conc-small/library", configuration: concurrent) { _ async in
        await batch { blackHole(expectSuccess(await NginxAPI.small.request(type: Todo.self), "small")) }
    }
    Benchmark("e2e/conc-small/urlsession", configuration: concurrent) { _ async in
        await batch {
            blackHole(await expectSuccess("raw small") { try await RawURLSession.get(.small, as: Todo.self) })
        }
    }
    Benchmark("e2e/conc-small/get-style", configuration: concurrent) { _ async in
        await batch {
            blackHole(await expectSuccess("get-style small") { try await GetStyleClient.nginx.send("small.json", as: Todo.self) })
        }
    }

    // GET + decode of the lists.
    Benchmark("e2e/seq-list100/library", configuration: sequential(1000, seconds: 3)) { _ async in
        blackHole(expectSuccess(await NginxAPI.list100.request(type: [Todo].self), "list100"))
    }
    Benchmark("e2e/seq-list100/urlsession", configuration: sequential(1000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw list100") { try await RawURLSession.get(.list100, as: [Todo].self) })
    }
    Benchmark("e2e/seq-list100/get-style", configuration: sequential(1000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("get-style list100") { try await GetStyleClient.nginx.send("list100.json", as: [Todo].self) })
    }
    Benchmark("e2e/seq-list5000/library", configuration: sequential(100, seconds: 5)) { _ async in
        blackHole(expectSuccess(await NginxAPI.list5000.request(type: [Todo].self), "list5000"))
    }
    Benchmark("e2e/seq-list5000/urlsession", configuration: sequential(100, seconds: 5)) { _ async in
        blackHole(await expectSuccess("raw list5000") { try await RawURLSession.get(.list5000, as: [Todo].self) })
    }
    Benchmark("e2e/seq-list5000/get-style", configuration: sequential(100, seconds: 5)) { _ async in
        blackHole(await expectSuccess("get-style list5000") { try await GetStyleClient.nginx.send("list5000.json", as: [Todo].self) })
    }

    // POST of the 60-byte JSON body, 201 + decode.
    Benchmark("e2e/post-small/library", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(expectSuccess(await NginxAPI.create.request(type: Todo.self), "create"))
    }
    Benchmark("e2e/post-small/urlsession", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw create") { try await RawURLSession.create() })
    }
    Benchmark("e2e/post-small/get-style", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(
            await expectSuccess("get-style create") {
                try await GetStyleClient.nginx.send("todos", method: "POST", body: NewTodo(), as: Todo.self)
            })
    }

    // Scenario 4: 100 MB to a file.
    let download = Benchmark.Configuration(
        metrics: metrics, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: iterations(5),
        teardown: { try? FileManager.default.removeItem(at: downloadFile) })
    Benchmark("download/100mb/library", configuration: download) { _ async in
        blackHole(expectSuccess(await NginxAPI.big.download(to: downloadFile), "download"))
    }
    Benchmark("download/100mb/urlsession", configuration: download) { _ async in
        await expectSuccess("raw download") { try await RawURLSession.download(to: downloadFile) }
    }
}
