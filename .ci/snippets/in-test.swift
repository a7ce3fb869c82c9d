// Puts the block's statements in a test function (after `models`, `todo-api`, `testing`), for a
// fragment of a test such as a list of #expect lines.
@Test func snippet() async throws {
    // @snippet
}
