// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "EndpointRouter",
    // The oldest systems with what the library uses without fallbacks: `Duration` and
    // `ContinuousClock` for deadlines, and `URLComponents.encodedHost` for punycode hosts
    // (macOS 13, iOS 16, tvOS 16, watchOS 9). Linux needs only the Swift 6.2 toolchain.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointRouter", targets: ["EndpointRouter"]),
        .library(name: "EndpointRouterTesting", targets: ["EndpointRouterTesting"]),
        .executable(name: "example", targets: ["example"]),
    ],
    targets: [
        // The few libcurl calls Swift cannot make itself, loaded at run time (no header, no link flag).
        .target(name: "CLibcurl"),
        .target(name: "EndpointRouter", dependencies: ["CLibcurl"]),
        .target(name: "EndpointRouterTesting", dependencies: ["EndpointRouter"]),
        .executableTarget(name: "example", dependencies: ["EndpointRouter", "EndpointRouterTesting"]),
        .target(name: "HTTPTestServer", path: "Tests/HTTPTestServer"),
        .testTarget(name: "EndpointRouterTests", dependencies: ["EndpointRouter", "HTTPTestServer"]),
        .testTarget(name: "EndpointRouterTestingTests",
                    dependencies: ["EndpointRouter", "EndpointRouterTesting", "HTTPTestServer"]),
        .testTarget(name: "HTTPBinTests", dependencies: ["EndpointRouter"]),
        // The OpenAPI generator's committed output for two documents, run against the in-process
        // server. It compiles the very files the generator's golden test compares, so a re-record
        // that changes them is tested here too; the generator package itself cannot import
        // HTTPTestServer (not a product). No dependency is added.
        .testTarget(
            name: "GeneratedClientTests", dependencies: ["EndpointRouter", "HTTPTestServer"], path: "OpenAPIGenerator/Goldens",
            exclude: ["SOGPetstore", "TomTomSearch", "Webhook", "Patterns"], sources: ["Petstore", "USPTO", "EndToEndTests"]),
    ],
    swiftLanguageModes: [.v6]
)
