// What a test file of the testing guide has around its examples (after `models`, `todo-api`).
import Testing
import EndpointRouterTesting

/// The repository's Fixtures/: the checker runs blocks with SNIPPETS_ROOT set to the repository.
enum TestPaths {
    static let fixtures = URL(fileURLWithPath: ProcessInfo.processInfo.environment["SNIPPETS_ROOT"] ?? FileManager.default.currentDirectoryPath)
        .appendingPathComponent("Fixtures")
}

/// A fresh, empty directory for `body`, removed afterwards.
func withTemporaryDirectory<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (URL) async throws -> R
) async rethrows -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snippet-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}
