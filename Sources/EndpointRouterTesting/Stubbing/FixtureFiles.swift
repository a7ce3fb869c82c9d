import EndpointRouter
import Foundation

/// Reads the files behind ``StubResponse/fixture(_:in:status:headers:)``.
enum FixtureFiles {
    /// The contents of `name` in `directory`.
    ///
    /// - Throws: `.transport(URLError(.fileDoesNotExist))` whose text names the full path and lists
    ///   what the directory holds, since the usual cause is a typo or a wrong directory.
    static func read(_ name: String, in directory: URL) throws(HTTPClientError) -> Data {
        let file = directory.appendingPathComponent(name)
        do {
            return try Data(contentsOf: file)
        } catch {
            throw .transport(
                .fileDoesNotExist,
                "StubResponse.fixture could not read '\(name)' at \(file.path): "
                    + "\(error.localizedDescription). \(listing(of: directory))", url: file)
        }
    }

    /// `Files there: a.json, b.json.`, or why there are none.
    static func listing(of directory: URL, limit: Int = 30) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            return "The directory \(directory.path) does not exist."
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else { return "The directory \(directory.path) is empty." }
        let shown = names.prefix(limit).joined(separator: ", ")
        return "Files there: \(shown)\(names.count > limit ? ", … (\(names.count) in all)" : "")."
    }

    /// A `Content-Type` guessed from the file extension.
    static func contentType(forFileName name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "xml": "application/xml"
        case "csv": "text/csv; charset=utf-8"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        default: "application/octet-stream"
        }
    }
}
