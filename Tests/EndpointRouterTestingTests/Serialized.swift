import Testing

/// The parent of every suite in this target whose assertions are figures: a wall-clock bound or a
/// resident-memory bound. Its tests run one at a time, and CI runs the whole group in a step of its
/// own (`swift test --no-parallel --filter`, see `.ci/run`), never beside the parallel suite: on a
/// 2-core machine another suite's burst of work can hold a test's thread or grow the process's
/// memory past a bound that holds when the test runs alone. A test that asserts no figure belongs
/// outside it, where it runs in parallel.
@Suite("Timing and memory, one test at a time", .serialized)
enum Serialized {}
