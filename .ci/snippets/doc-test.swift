// For a doc-comment block with `#expect` or `#require` (chosen for it by default): the block is the
// body of a test function.
import Testing

@Test func docExample() async throws {
    // @snippet
}
