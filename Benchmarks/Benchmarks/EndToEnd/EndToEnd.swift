// Scenarios 2 and 4 of issue 10, with issue 23's transports: the library on CurlTransport
// (`…/library-curl`, `NginxOnCurl`) and on URLSessionTransport (`…/library-urlsession`, `NginxAPI`),
// each named explicitly rather than taken from the platform's default, against raw
// `URLSession.shared` + one `JSONDecoder` (`…/urlsession`), a raw libcurl multi loop + one
// `JSONDecoder` (`…/raw-curl`, `RawLibcurl`), the same loop under the transport's rules as a
// diagnostic (`…/raw-curl-rules`, `RawLibcurlUnderRules`), and (issue 15) a Get-style hand-written client on
// URLSession (`…/get-style`, `GetStyleClient`), all against the benchmark nginx
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

/// The two endpoint enums, ``NginxOnCurl`` and ``NginxAPI`` (URLSession): the same cases on two
/// transports, so that one closure measures the library on either.
protocol LibraryEndpoint: EndpointRouter.HTTPClient {
    static var small: Self { get }
    static var list100: Self { get }
    static var list5000: Self { get }
    static var create: Self { get }
}
extension NginxOnCurl: LibraryEndpoint {}
extension NginxAPI: LibraryEndpoint {}

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

    // One scenario, six sides: the library on each transport, the three hand-written baselines, and
    // the raw libcurl loop under the transport's rules (a diagnostic, not a baseline of the issue).
    func scenario(
        _ name: String, _ configuration: Benchmark.Configuration,
        library: @escaping @Sendable (any LibraryEndpoint.Type) async -> Void,
        urlSession: @escaping @Sendable () async -> Void, rawCurl: @escaping @Sendable () async -> Void,
        rulesCurl: @escaping @Sendable () async -> Void, getStyle: @escaping @Sendable () async -> Void
    ) {
        let concurrent = name.hasPrefix("e2e/conc-")
        func run(_ call: @escaping @Sendable () async -> Void) -> @Sendable () async -> Void {
            guard concurrent else { return call }
            return { await batch(call) }
        }
        let onCurl = run { await library(NginxOnCurl.self) }
        let onURLSession = run { await library(NginxAPI.self) }
        let raw = run(urlSession)
        let curl = run(rawCurl)
        let rules = run(rulesCurl)
        let get = run(getStyle)
        Benchmark("\(name)/library-curl", configuration: configuration) { _ async in await onCurl() }
        Benchmark("\(name)/library-urlsession", configuration: configuration) { _ async in await onURLSession() }
        Benchmark("\(name)/urlsession", configuration: configuration) { _ async in await raw() }
        Benchmark("\(name)/raw-curl", configuration: configuration) { _ async in await curl() }
        Benchmark("\(name)/raw-curl-rules", configuration: configuration) { _ async in await rules() }
        Benchmark("\(name)/get-style", configuration: configuration) { _ async in await get() }
    }

    // (a) GET + decode of ~200 B, one request at a time.
    scenario(
        "e2e/seq-small", sequential(2000, seconds: 3),
        library: { api in blackHole(expectSuccess(await api.small.request(type: Todo.self), "small")) },
        urlSession: { blackHole(await expectSuccess("raw small") { try await RawURLSession.get(.small, as: Todo.self) }) },
        rawCurl: { blackHole(await expectSuccess("raw-curl small") { try await RawCurlCalls.get(.small, as: Todo.self) }) },
        rulesCurl: {
            blackHole(await expectSuccess("raw-curl-rules small") { try await RawCurlCalls.get(.small, as: Todo.self, on: .underRules) })
        },
        getStyle: {
            blackHole(await expectSuccess("get-style small") { try await GetStyleClient.nginx.send("small.json", as: Todo.self) })
        })

    // (b) the same, 64 in flight (one iteration = a batch of 256).
    let concurrent = Benchmark.Configuration(metrics: metrics, warmupIterations: 2, maxDuration: .seconds(5), maxIterations: iterations(30))
    scenario(
        "e2e/conc-small", concurrent,
        library: { api in blackHole(expectSuccess(await api.small.request(type: Todo.self), "small")) },
        urlSession: { blackHole(await expectSuccess("raw small") { try await RawURLSession.get(.small, as: Todo.self) }) },
        rawCurl: { blackHole(await expectSuccess("raw-curl small") { try await RawCurlCalls.get(.small, as: Todo.self) }) },
        rulesCurl: {
            blackHole(await expectSuccess("raw-curl-rules small") { try await RawCurlCalls.get(.small, as: Todo.self, on: .underRules) })
        },
        getStyle: {
            blackHole(await expectSuccess("get-style small") { try await GetStyleClient.nginx.send("small.json", as: Todo.self) })
        })

    // GET + decode of the lists.
    scenario(
        "e2e/seq-list100", sequential(1000, seconds: 3),
        library: { api in blackHole(expectSuccess(await api.list100.request(type: [Todo].self), "list100")) },
        urlSession: { blackHole(await expectSuccess("raw list100") { try await RawURLSession.get(.list100, as: [Todo].self) }) },
        rawCurl: { blackHole(await expectSuccess("raw-curl list100") { try await RawCurlCalls.get(.list100, as: [Todo].self) }) },
        rulesCurl: {
            blackHole(
                await expectSuccess("raw-curl-rules list100") { try await RawCurlCalls.get(.list100, as: [Todo].self, on: .underRules) })
        },
        getStyle: {
            blackHole(await expectSuccess("get-style list100") { try await GetStyleClient.nginx.send("list100.json", as: [Todo].self) })
        })
    scenario(
        "e2e/seq-list5000", sequential(100, seconds: 5),
        library: { api in blackHole(expectSuccess(await api.list5000.request(type: [Todo].self), "list5000")) },
        urlSession: { blackHole(await expectSuccess("raw list5000") { try await RawURLSession.get(.list5000, as: [Todo].self) }) },
        rawCurl: { blackHole(await expectSuccess("raw-curl list5000") { try await RawCurlCalls.get(.list5000, as: [Todo].self) }) },
        rulesCurl: {
            blackHole(
                await expectSuccess("raw-curl-rules list5000") { try await RawCurlCalls.get(.list5000, as: [Todo].self, on: .underRules) })
        },
        getStyle: {
            blackHole(
                await expectSuccess("get-style list5000") { try await GetStyleClient.nginx.send("list5000.json", as: [Todo].self) })
        })

    // POST of the 60-byte JSON body, 201 + decode.
    scenario(
        "e2e/post-small", sequential(2000, seconds: 3),
        library: { api in blackHole(expectSuccess(await api.create.request(type: Todo.self), "create")) },
        urlSession: { blackHole(await expectSuccess("raw create") { try await RawURLSession.create() }) },
        rawCurl: { blackHole(await expectSuccess("raw-curl create") { try await RawCurlCalls.create() }) },
        rulesCurl: { blackHole(await expectSuccess("raw-curl-rules create") { try await RawCurlCalls.create(on: .underRules) }) },
        getStyle: {
            blackHole(
                await expectSuccess("get-style create") {
                    try await GetStyleClient.nginx.send("todos", method: "POST", body: NewTodo(), as: Todo.self)
                })
        })

    // Scenario 4: 100 MB to a file.
    let download = Benchmark.Configuration(
        metrics: metrics, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: iterations(5),
        teardown: { try? FileManager.default.removeItem(at: downloadFile) })
    Benchmark("download/100mb/library-curl", configuration: download) { _ async in
        blackHole(expectSuccess(await NginxOnCurl.big.download(to: downloadFile), "download"))
    }
    Benchmark("download/100mb/library-urlsession", configuration: download) { _ async in
        blackHole(expectSuccess(await NginxAPI.big.download(to: downloadFile), "download"))
    }
    Benchmark("download/100mb/urlsession", configuration: download) { _ async in
        await expectSuccess("raw download") { try await RawURLSession.download(to: downloadFile) }
    }
}
