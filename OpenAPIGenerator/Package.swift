// swift-tools-version:6.2
import PackageDescription

// The generator lives apart from the library so that an app using EndpointRouter never builds a
// YAML parser: the generated Swift imports only EndpointRouter and Foundation.
let package = Package(
    name: "EndpointRouterOpenAPI",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "endpointrouter-openapi", targets: ["endpointrouter-openapi"]),
        .library(name: "EndpointRouterOpenAPI", targets: ["EndpointRouterOpenAPI"]),
    ],
    dependencies: [
        .package(name: "EndpointRouter", path: ".."),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // No trait: the default ExternalLoading trait (async loading of other files' references)
        // roughly triples OpenAPIKit's build time and the generator reads one file.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
    ],
    targets: [
        .target(
            name: "EndpointRouterOpenAPI",
            dependencies: [.product(name: "Yams", package: "Yams"), "OpenAPIKit30Check", "OpenAPIKit31Check"], swiftSettings: strict),
        // One OpenAPIKit module each: both make OpenAPIKitCore's types Validatable, and a module
        // importing both links the wrong conformance.
        .target(
            name: "OpenAPIKit30Check", dependencies: [.product(name: "OpenAPIKit30", package: "OpenAPIKit")], swiftSettings: strict),
        .target(name: "OpenAPIKit31Check", dependencies: [.product(name: "OpenAPIKit", package: "OpenAPIKit")], swiftSettings: strict),
        .executableTarget(name: "endpointrouter-openapi", dependencies: ["EndpointRouterOpenAPI"], swiftSettings: strict),
        .testTarget(name: "EndpointRouterOpenAPITests", dependencies: ["EndpointRouterOpenAPI"], swiftSettings: strict),
        // The golden files are compiled as they are committed, so `swift build` proves the small
        // documents' output builds without a warning, and the behaviour tests run it.
        golden("Petstore"), golden("USPTO"), golden("Webhook"), golden("SOGPetstore"), golden("TomTomSearch"),
        // The pattern documents of issue 42 (`Fixtures/Patterns`), one folder each.
        golden("Patterns"),
        .testTarget(
            name: "GeneratedCodeTests",
            dependencies: [
                "GoldenPetstore", "GoldenUSPTO", "GoldenSOGPetstore", "GoldenTomTomSearch", "GoldenPatterns", "EndpointRouterOpenAPI",
                .product(name: "EndpointRouter", package: "EndpointRouter"),
                .product(name: "EndpointRouterTesting", package: "EndpointRouter"),
            ], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

/// A target holding one document's committed generated code (`Goldens/<name>`).
@MainActor func golden(_ name: String) -> Target {
    .target(
        name: "Golden\(name)", dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter")], path: "Goldens/\(name)",
        swiftSettings: strict)
}

/// Zero warnings, enforced for this package's own targets (not for Yams).
var strict: [SwiftSetting] { [.treatAllWarnings(as: .error)] }
