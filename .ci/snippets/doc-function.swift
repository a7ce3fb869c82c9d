// For a doc-comment block whose statements must run in a function rather than at the top level
// (a `var` iterator, which at the top level would belong to the main actor).
func docExample() async throws {
    // @snippet
}
