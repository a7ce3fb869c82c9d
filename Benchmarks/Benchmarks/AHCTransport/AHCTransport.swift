// Scenario 5 of issue 10: the library on AsyncHTTPClientTransport against raw AsyncHTTPClient and
// raw URLSession, in the end-to-end scenarios of EndToEnd, against the same nginx (`BENCH_BASE_URL`).
// Names: ahc/<scenario>/{library,ahc,urlsession}; `aggregate.py` prints library ÷ ahc (target ≥ 0.9)
// and ahc ÷ urlsession.
//
// Both AsyncHTTPClient sides use what a user gets by default: the library the transport's own client
// (`AsyncHTTPClientTransport()`: redirects off, decompression on with a ratio limit), the baseline
// `HTTPClient.shared`, with the body collected and decoded by one shared `JSONDecoder`.
import AHCFixtures
import AsyncHTTPClient
import Benchmark
import BenchmarkFixtures
import EndpointRouter
import EndpointRouterAsyncHTTPClient
import Foundation

/// ``NginxAPI``'s endpoints on the AsyncHTTPClient transport: the same requests, another transport.
enum NginxOnAHC: EndpointRouter.HTTPClient {
    case small, list100, list5000, create

    static let transport = AsyncHTTPClientTransport()

    private var mirrored: NginxAPI {
        switch self {
        case .small: .small
        case .list100: .list100
        case .list5000: .list5000
        case .create: .create
        }
    }

    var host: String { mirrored.host }
    var endpoint: String { mirrored.endpoint }
    var method: EndpointRouter.RequestMethod { mirrored.method }
    var body: EndpointBody? { mirrored.body }
    var transport: any HTTPTransport { Self.transport }
}

/// The baseline: `AsyncHTTPClient.HTTPClient.shared.execute`, the body collected, one shared `JSONDecoder`.
let rawAHC = RawAHCCalls(client: .shared)

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [
        .wallClock, .cpuTotal, .throughput, .peakMemoryResident, .peakMemoryResidentDelta, .mallocCountTotal,
    ]
    func sequential(_ count: Int, seconds: Int) -> Benchmark.Configuration {
        .init(
            metrics: metrics, warmupIterations: isSmokeRun ? 1 : max(5, count / 10), maxDuration: .seconds(seconds),
            maxIterations: iterations(count))
    }
    let concurrent = Benchmark.Configuration(metrics: metrics, warmupIterations: 2, maxDuration: .seconds(5), maxIterations: iterations(30))

    // GET + decode of ~200 B, one request at a time.
    Benchmark("ahc/seq-small/library", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(expectSuccess(await NginxOnAHC.small.request(type: Todo.self), "small"))
    }
    Benchmark("ahc/seq-small/ahc", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw AHC small") { try await rawAHC.get(.small, as: Todo.self) })
    }
    Benchmark("ahc/seq-small/urlsession", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw small") { try await RawURLSession.get(.small, as: Todo.self) })
    }

    // The same, 64 in flight (one iteration = a batch of 256).
    Benchmark("ahc/conc-small/library", configuration: concurrent) { _ async in
        await batch { blackHole(expectSuccess(await NginxOnAHC.small.request(type: Todo.self), "small")) }
    }
    Benchmark("ahc/conc-small/ahc", configuration: concurrent) { _ async in
        await batch { blackHole(await expectSuccess("raw AHC small") { try await rawAHC.get(.small, as: Todo.self) }) }
    }
    Benchmark("ahc/conc-small/urlsession", configuration: concurrent) { _ async in
        await batch { blackHole(await expectSuccess("raw small") { try await RawURLSession.get(.small, as: Todo.self) }) }
    }

    // GET + decode of the lists.
    Benchmark("ahc/seq-list100/library", configuration: sequential(1000, seconds: 3)) { _ async in
        blackHole(expectSuccess(await NginxOnAHC.list100.request(type: [Todo].self), "list100"))
    }
    Benchmark("ahc/seq-list100/ahc", configuration: sequential(1000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw AHC list100") { try await rawAHC.get(.list100, as: [Todo].self) })
    }
    Benchmark("ahc/seq-list100/urlsession", configuration: sequential(1000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw list100") { try await RawURLSession.get(.list100, as: [Todo].self) })
    }
    Benchmark("ahc/seq-list5000/library", configuration: sequential(100, seconds: 5)) { _ async in
        blackHole(expectSuccess(await NginxOnAHC.list5000.request(type: [Todo].self), "list5000"))
    }
    Benchmark("ahc/seq-list5000/ahc", configuration: sequential(100, seconds: 5)) { _ async in
        blackHole(await expectSuccess("raw AHC list5000") { try await rawAHC.get(.list5000, as: [Todo].self) })
    }
    Benchmark("ahc/seq-list5000/urlsession", configuration: sequential(100, seconds: 5)) { _ async in
        blackHole(await expectSuccess("raw list5000") { try await RawURLSession.get(.list5000, as: [Todo].self) })
    }

    // POST of the 60-byte JSON body, 201 + decode.
    Benchmark("ahc/post-small/library", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(expectSuccess(await NginxOnAHC.create.request(type: Todo.self), "create"))
    }
    Benchmark("ahc/post-small/ahc", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw AHC create") { try await rawAHC.create() })
    }
    Benchmark("ahc/post-small/urlsession", configuration: sequential(2000, seconds: 3)) { _ async in
        blackHole(await expectSuccess("raw create") { try await RawURLSession.create() })
    }
}
