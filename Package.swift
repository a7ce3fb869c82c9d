// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "EndpointRouter",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointRouter", targets: ["EndpointRouter"]),
        .library(name: "EndpointRouterTesting", targets: ["EndpointRouterTesting"]),
        .executable(name: "example", targets: ["example"]),
    ],
    targets: [
        .target(name: "EndpointRouter"),
        .target(name: "EndpointRouterTesting", dependencies: ["EndpointRouter"]),
        .executableTarget(name: "example", dependencies: ["EndpointRouter", "EndpointRouterTesting"]),
        .target(name: "HTTPTestServer", path: "Tests/HTTPTestServer"),
        .testTarget(name: "EndpointRouterTests", dependencies: ["EndpointRouter", "HTTPTestServer"]),
        .testTarget(name: "EndpointRouterTestingTests",
                    dependencies: ["EndpointRouter", "EndpointRouterTesting", "HTTPTestServer"]),
        .testTarget(name: "HTTPBinTests", dependencies: ["EndpointRouter"]),
    ],
    swiftLanguageModes: [.v6]
)
