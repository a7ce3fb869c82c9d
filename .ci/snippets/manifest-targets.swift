// swift-tools-version:6.2
// An app's Package.swift around a fragment of its `targets:` list.
import PackageDescription

let package = Package(
    name: "MyApp",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [
        .package(url: "https://github.com/your-org/EndpointRouter.git", branch: "main"),
    ],
    targets: [
        .target(name: "MyApp", dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter")]),
        // @snippet
    ]
)
