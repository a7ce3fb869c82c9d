// A test around the stubbed download block (after `models`, `files`, `testing`): `archive` and
// `destination` are what the block uses; the file must hold the archive afterwards.
@Test func downloadFromAStub() async throws {
    let archive = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
    try await withTemporaryDirectory { directory in
        let destination = directory.appendingPathComponent("archive.zip")
        // @snippet
        _ = try result.get()
        #expect(try Data(contentsOf: destination) == archive)
    }
}
