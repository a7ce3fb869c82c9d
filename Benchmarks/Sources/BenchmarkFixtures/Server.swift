import Foundation

/// Where the benchmark nginx listens: `BENCH_BASE_URL` set by `Benchmarks/run` (or by hand after
/// `./nginx.sh start`), such as `http://127.0.0.1:41234`. Read once per process.
public let benchmarkBaseURL: String = ProcessInfo.processInfo.environment["BENCH_BASE_URL"] ?? "http://127.0.0.1:18765"

/// The host used by the request-building benchmarks, which send nothing.
public let buildHost = "http://127.0.0.1:18765"

/// A bearer token of 32 characters, as in the performance anchors.
public let bearerToken = "Bearer 0123456789abcdef0123456789abcdef"

/// True under `run --smoke`: every benchmark does a few iterations only, to check that it works.
public let isSmokeRun = ProcessInfo.processInfo.environment["BENCH_SMOKE"] != nil

/// `iterations`, or 2 in a smoke run.
public func iterations(_ iterations: Int) -> Int { isSmokeRun ? 2 : iterations }

/// The CA file that makes the benchmark nginx's TLS listeners trusted (`BENCH_CA_FILE`, set by
/// `Benchmarks/load` to `nginx.sh`'s `tls/ca.pem`); `nil` for plain HTTP.
public let benchmarkCAFile: String? = ProcessInfo.processInfo.environment["BENCH_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
