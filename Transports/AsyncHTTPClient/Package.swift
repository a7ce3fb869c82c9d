// swift-tools-version:6.2
import PackageDescription

// The AsyncHTTPClient transport lives in a package of its own so that the EndpointRouter package
// itself keeps no dependency: only an app that wants this transport pulls in SwiftNIO.
let package = Package(
    name: "EndpointRouterAsyncHTTPClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointRouterAsyncHTTPClient", targets: ["EndpointRouterAsyncHTTPClient"])
    ],
    dependencies: [
        .package(name: "EndpointRouter", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
        // Only for the names test below (a file importing HTTPTypes beside AsyncHTTPClient and
        // NIOHTTP1); already in this package's graph through swift-nio-extras, so nothing new is fetched.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Only for the Hummingbird names tests below (issue 43: a Hummingbird 2 app's file beside
        // EndpointRouter, built by CI); no library target of this package depends on it.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .target(
            name: "EndpointRouterAsyncHTTPClient",
            dependencies: [
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        // The root package's in-process test server, shared through a symbolic link.
        .target(name: "HTTPTestServer", path: "Tests/HTTPTestServer"),
        .testTarget(
            name: "EndpointRouterAsyncHTTPClientTests",
            dependencies: [
                "EndpointRouterAsyncHTTPClient",
                "HTTPTestServer",
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "EndpointRouterTesting", package: "EndpointRouter"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // A stand-in for Vapor: a module that re-exports AsyncHTTPClient and NIOHTTP1 as Vapor does,
        // so that a file importing it sees their `HTTPClient`, `HTTPClientError`, `HTTPMethod` and
        // `HTTPHeaders` without importing them itself.
        .target(
            name: "VaporStyleFramework",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/VaporStyleFramework"
        ),
        // A Vapor app's file: the framework beside EndpointRouter, with `MemberImportVisibility` on
        // (EndpointRouterAsyncHTTPClientTests builds the same names with it off).
        .testTarget(
            name: "VaporStyleNamesTests",
            dependencies: [
                "VaporStyleFramework",
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "EndpointRouterTesting", package: "EndpointRouter"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // A Hummingbird 2 app's file: Hummingbird (default traits, as an app gets it) beside
        // EndpointRouter, with `MemberImportVisibility` on. HummingbirdTesting runs its route through
        // `app.test(.router)`; it adds only its own module, its dependencies (AsyncHTTPClient, NIOSSL,
        // NIOHTTPTypes) being built for this package already.
        .testTarget(
            name: "HummingbirdNamesTests",
            dependencies: [
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "EndpointRouterTesting", package: "EndpointRouter"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The same file (a symbolic link to HummingbirdNamesTests') with `MemberImportVisibility` off,
        // in a module of its own: the module imports what a Hummingbird app's module imports and
        // nothing else, where EndpointRouterAsyncHTTPClientTests also imports AsyncHTTPClient and
        // NIOHTTP1, whose members would leak into the file with the feature off.
        .testTarget(
            name: "HummingbirdNamesVisibilityOffTests",
            dependencies: [
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "EndpointRouterTesting", package: "EndpointRouter"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
