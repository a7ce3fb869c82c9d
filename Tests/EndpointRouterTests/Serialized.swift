import Testing

/// The parent of every suite in this target whose assertions are figures: a wall-clock bound, a
/// resident-memory bound or a throughput. Its tests run one at a time (the trait applies to nested
/// suites), and CI runs the whole group in a step of its own (`swift test --no-parallel --filter`,
/// see `.ci/run`), never beside the parallel suite: on a 2-core machine another suite's burst of
/// work grows the process's resident memory and holds a test's thread back, so a bound that holds
/// alone fails there (a 24 MiB peak measured at 59 MiB, a 32 MiB one at 47 MiB). A test that
/// asserts no figure belongs outside it, where it runs in parallel.
@Suite("Timing and memory, one test at a time", .serialized)
enum Serialized {}
