// swift-tools-version:6.1
// The benchmarks of EndpointRouter against hand-written Foundation code: a package of its own, so
// that the library's root Package.swift stays free of dependencies. Run everything with `./run`.
// Scenario 5 pulls in the AsyncHTTPClient companion (Transports/AsyncHTTPClient) and so SwiftNIO.
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
        .package(name: "EndpointRouterAsyncHTTPClient", path: "../Transports/AsyncHTTPClient"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.36.0"),
        // MallocInterposer gives allocation counts; naming the trait leaves the Linux ARC runtime
        // interposer (and its package, absent from the local cache) out.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The raw libcurl baseline's C shim (dlopen of libcurl.so.4, typed setopt/getinfo): its own,
        // since the library's CLibcurl is internal; needs no curl headers to build.
        .target(name: "CRawCurl"),
        .target(
            name: "BenchmarkFixtures",
            dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter"), "CRawCurl"]),
        // The hand-written AsyncHTTPClient baseline (`RawAHCCalls`), given its client: scenario 5's
        // `HTTPClient.shared` and the load benchmark's tuned client. Apart from BenchmarkFixtures so
        // that the targets without AsyncHTTPClient do not link SwiftNIO.
        .target(
            name: "AHCFixtures",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]),
        // Issue 23: instructions per call on CurlTransport beside the raw libcurl loop, for callgrind
        // (`./instructions curl`); a plain executable, not a package-benchmark target.
        .executableTarget(
            name: "CurlInstructions",
            dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter"), "BenchmarkFixtures"]),
        // Issue 41: the load benchmark (`./load`): one client side × scenario × protocol per process,
        // a fixed time at 1, 64 or 256 in flight, every request's latency recorded (p50, p99), plain
        // HTTP/1.1, TLS HTTP/1.1 and HTTP/2 against the same nginx; a plain executable.
        .executableTarget(
            name: "Load",
            dependencies: [
                .product(name: "EndpointRouter", package: "EndpointRouter"), "BenchmarkFixtures", "AHCFixtures",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .executableTarget(name: "RequestBuilding", dependencies: benchmarkDependencies,
                          path: "Benchmarks/RequestBuilding", plugins: benchmarkPlugins),
        .executableTarget(name: "Middleware", dependencies: benchmarkDependencies,
                          path: "Benchmarks/Middleware", plugins: benchmarkPlugins),
        .executableTarget(name: "EndToEnd", dependencies: benchmarkDependencies,
                          path: "Benchmarks/EndToEnd", plugins: benchmarkPlugins),
        // Scenario 5: the library on AsyncHTTPClientTransport vs raw AsyncHTTPClient vs raw URLSession.
        .executableTarget(
            name: "AHCTransport",
            dependencies: benchmarkDependencies + [
                "AHCFixtures",
                .product(name: "EndpointRouterAsyncHTTPClient", package: "EndpointRouterAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/AHCTransport", plugins: benchmarkPlugins),
        // Issue 14: streamed Server-Sent Events through the library vs hand-written loops on the same
        // transports (URLSession and AsyncHTTPClient), and the SSE parser alone.
        .executableTarget(
            name: "Streaming",
            dependencies: benchmarkDependencies + [
                .product(name: "EndpointRouterAsyncHTTPClient", package: "EndpointRouterAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/Streaming", plugins: benchmarkPlugins),
    ],
    swiftLanguageModes: [.v6]
)
