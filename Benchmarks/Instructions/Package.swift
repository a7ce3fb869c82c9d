// swift-tools-version:6.2
// Instructions per call of the library's pipeline, counted by valgrind's callgrind: repeatable on a
// loaded machine, where wall-clock benchmarks are not. Run with `Benchmarks/instructions`.
import PackageDescription

let package = Package(
    name: "EndpointRouterInstructions",
    dependencies: [.package(name: "EndpointRouter", path: "../..")],
    targets: [
        .executableTarget(name: "instructions", dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter")]),
        .executableTarget(name: "streams", dependencies: [.product(name: "EndpointRouter", package: "EndpointRouter")]),
    ],
    swiftLanguageModes: [.v6]
)
