// swift-tools-version:6.1
// The benchmarks of EndpointRouter against hand-written Foundation code: a package of its own, so
// that the library's root Package.swift stays free of dependencies. Run everything with `./run`.
import PackageDescription

let benchmarkDependencies: [Target.Dependency] = [
    .product(name: "Benchmark", package: "benchmark"),
    .product(name: "EndpointRouter", package: "EndpointRouter"),
    "BenchmarkFixtures",
]
let benchmarkPlugins: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "benchmark")]

let package = Package(
    name: "EndpointRouterBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "EndpointRouter", path: ".."),
        // MallocInterposer gives allocation counts; naming the trait leaves the Linux ARC runtime
        // interposer (and its package, absent from the local cache) out.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "BenchmarkFixtures", dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter")]),
        .executableTarget(name: "RequestBuilding", dependencies: benchmarkDependencies,
                          path: "Benchmarks/RequestBuilding", plugins: benchmarkPlugins),
        .executableTarget(name: "Middleware", dependencies: benchmarkDependencies,
                          path: "Benchmarks/Middleware", plugins: benchmarkPlugins),
        .executableTarget(name: "EndToEnd", dependencies: benchmarkDependencies,
                          path: "Benchmarks/EndToEnd", plugins: benchmarkPlugins),
        // SCENARIO 5 (issue 10), to be wired once Transports/AsyncHTTPClient is merged:
        //   dependencies += .package(name: "EndpointRouterAsyncHTTPClient", path: "../Transports/AsyncHTTPClient")
        //   .executableTarget(name: "AsyncHTTPClient", dependencies: benchmarkDependencies + [
        //       .product(name: "EndpointRouterAsyncHTTPClient", package: "EndpointRouterAsyncHTTPClient")],
        //       path: "Benchmarks/AsyncHTTPClient", plugins: benchmarkPlugins),
        // with benchmarks named ahc/<scenario>/library (NginxAPI on AsyncHTTPClientTransport),
        // ahc/<scenario>/ahc (raw HTTPClient.shared + JSONDecoder) and ahc/<scenario>/urlsession, for
        // the scenarios of EndToEnd; aggregate.py already prints ahc/* rows (library vs urlsession);
        // add the library ÷ raw-AHC ratio there (target ≥ 0.9 in every scenario).
    ],
    swiftLanguageModes: [.v6]
)
