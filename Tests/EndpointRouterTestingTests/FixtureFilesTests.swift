import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// `StubResponse.fixture` answers with a file's bytes and a Content-Type from its extension; a
/// missing file fails with a message that lists what the directory holds.
@Suite("Fixture files")
struct FixtureFilesTests {
    static let types: [(String, String)] = [
        ("page.html", "text/html; charset=utf-8"),
        ("page.HTM", "text/html; charset=utf-8"),
        ("feed.xml", "application/xml"),
        ("rows.csv", "text/csv; charset=utf-8"),
        ("logo.png", "image/png"),
        ("photo.jpg", "image/jpeg"),
        ("photo.jpeg", "image/jpeg"),
        ("notes.txt", "text/plain; charset=utf-8"),
        ("data.json", "application/json"),
        ("archive.tar", "application/octet-stream"),
    ]

    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(arguments: types)
    func contentTypeFollowsTheExtension(_ name: String, _ type: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("content of \(name)".utf8).write(to: directory.appendingPathComponent(name))
        let stub = StubTransport().on(.get, "/file", respond: .fixture(name, in: directory))
        let response = try await stub.exchange(try makeRequest(.get, "https://api.example.com/file"))
        #expect(response.headers["Content-Type"] == type)
        #expect(response.body == Data("content of \(name)".utf8))
    }

    @Test func aMissingFileInAnEmptyDirectorySaysItIsEmpty() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport().on(.get, "/file", respond: .fixture("todos.json", in: directory))
        let error = try #require(await transportError(stub, try makeRequest(.get, "https://api.example.com/file")))
        #expect(error.urlError?.code == .fileDoesNotExist)
        #expect(error.localizedDescription.contains("The directory \(directory.path) is empty."), "\(error.localizedDescription)")
    }

    @Test func aMissingFileListsTheFilesThereSortedAndCapped() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<32 {
            try Data().write(to: directory.appendingPathComponent(String(format: "f%02d.json", index)))
        }
        try Data().write(to: directory.appendingPathComponent(".hidden"))
        let stub = StubTransport().on(.get, "/file", respond: .fixture("todo.json", in: directory))
        let text = try #require(await transportError(stub, try makeRequest(.get, "https://api.example.com/file")))
            .localizedDescription
        #expect(text.contains("Files there: f00.json, f01.json, "), "\(text)")
        #expect(text.contains("f29.json, … (32 in all)."), "\(text)")
        #expect(!text.contains("f30.json"))
        #expect(!text.contains(".hidden"))
    }
}
