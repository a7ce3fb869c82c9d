import Foundation

/// The package's `Fixtures/` folder: what the offline server answers from, and the image the
/// upload scenario sends in both modes.
enum Fixtures {
    /// Found from this source file, so `swift run example` works from any directory; the current
    /// directory otherwise (a copied binary run from the package root).
    static let directory: URL = {
        let fromSource = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        if FileManager.default.fileExists(atPath: fromSource.path) { return fromSource }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Fixtures")
    }()

    /// The bytes of the fixture `name`, or `nil` when it cannot be read.
    static func data(_ name: String) -> Data? {
        try? Data(contentsOf: directory.appendingPathComponent(name))
    }
}
