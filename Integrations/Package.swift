// swift-tools-version:6.2
import PackageDescription

// Companions for server apps, in a package of their own so that the EndpointRouter package keeps no
// dependency: each product pulls in only the one ecosystem package it speaks to.
let package = Package(
    name: "EndpointRouterIntegrations",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointRouterLogging", targets: ["EndpointRouterLogging"]),
        .library(name: "EndpointRouterMetrics", targets: ["EndpointRouterMetrics"]),
        .library(name: "EndpointRouterTracing", targets: ["EndpointRouterTracing"]),
        .library(name: "EndpointRouterHTTPTypes", targets: ["EndpointRouterHTTPTypes"]),
        .library(name: "EndpointRouterServiceLifecycle", targets: ["EndpointRouterServiceLifecycle"]),
    ],
    dependencies: [
        .package(name: "EndpointRouter", path: "../"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Tracing 1.7 carries `ServiceContextModule` itself (swift-service-context now depends on it).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "EndpointRouterLogging",
            dependencies: [
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The OpenTelemetry HTTP client attributes, shared by the metrics and the tracing middleware.
        .target(
            name: "ClientAttributes",
            dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter")]
        ),
        .target(
            name: "EndpointRouterMetrics",
            dependencies: [
                "ClientAttributes",
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "EndpointRouterTracing",
            dependencies: [
                "ClientAttributes",
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "EndpointRouterHTTPTypes",
            dependencies: [
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "EndpointRouterServiceLifecycle",
            dependencies: [
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "EndpointRouterIntegrationsTests",
            dependencies: [
                "EndpointRouterLogging", "EndpointRouterMetrics", "EndpointRouterTracing", "EndpointRouterHTTPTypes",
                "EndpointRouterServiceLifecycle",
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "EndpointRouterTesting", package: "EndpointRouter"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]
        ),
        // A Hummingbird-style app module: `import HTTPTypes` beside EndpointRouter, every name
        // unqualified (HTTPTypes declares none of EndpointRouter's), as the ServerApps article says.
        .testTarget(
            name: "HTTPTypesNamesTests",
            dependencies: [
                "EndpointRouterHTTPTypes",
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "EndpointRouterTesting", package: "EndpointRouter"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
