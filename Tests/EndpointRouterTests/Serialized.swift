import Testing

/// The parent of every suite that measures time or memory. Its tests run one at a time (the trait
/// applies to nested suites), so one test's fast transfer or large allocation never skews another's
/// figure on a 2-core machine; suites outside it still run in parallel with these.
@Suite("Timing and memory, one test at a time", .serialized)
enum Serialized {}
