import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

extension Serialized {
    /// What happens to the connection and the rest of the process once a caller abandons a transfer.
    @Suite("Abandoned transfers on URLSessionTransport")
    struct AbandonedTransferTests {
        /// 16 in flight, each cancelled 0–1 ms after it starts, `timeout: 2`: every completion handler
        /// is called exactly once, within the deadline + 1 s. (Corelibs can lose the completion
        /// callback of a task cancelled as it starts; the library must not depend on it.)
        /// `RACE_REQUESTS` sets the count; CI runs 100,000.
        @Test func cancelRacingTheStartEndsEveryRequestExactlyOnce() async throws {
            let count = Int(ProcessInfo.processInfo.environment["RACE_REQUESTS"] ?? "") ?? 2_000
            let seed = UInt64(ProcessInfo.processInfo.environment["RACE_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
            var random = SeededGenerator(state: seed)
            let server = try TestServer(response: .json("{}"))
            defer { server.stop() }
            let transport = URLSessionTransport()
            let deliveries = Locked<[Int: Int]>([:])
            let batchSize = 16
            var late: [Int] = []
            for batchStart in stride(from: 0, to: count, by: batchSize) {
                let ids = batchStart..<min(count, batchStart + batchSize)
                let started = ContinuousClock.now
                for id in ids {
                    let handle = TestEndpoint(host: server.baseURL, endpoint: "race/\(id)", timeout: 2, transport: transport)
                        .request(type: EmptyResponse.self) { _ in deliveries.withLock { $0[id, default: 0] += 1 } }
                    let delay = Int.random(in: 0...1_000, using: &random)
                    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay)) { handle.cancel() }
                }
                let limit = started + .seconds(3)
                while ContinuousClock.now < limit, deliveries.withLock({ state in ids.contains { state[$0] == nil } }) {
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
                late += ids.filter { id in deliveries.withLock { $0[id] == nil } }
                if late.count > 10 { break }
            }
            try await Task.sleep(nanoseconds: 100_000_000)  // time for a second, wrong delivery to show
            let counts = deliveries.withLock { $0 }
            #expect(late.isEmpty, "seed \(seed): requests \(late.prefix(10)) were not answered within the deadline + 1 s")
            #expect(counts.values.allSatisfy { $0 == 1 }, "seed \(seed): some completion handler ran twice")
            #expect(counts.count == count || !late.isEmpty, "seed \(seed): \(count - counts.count) requests never answered")
        }

        /// After a cancel, a deadline or a size-limit failure the connection should close promptly,
        /// so an abandoned transfer costs nothing more. On Linux, corelibs' `cancel()` waits for a
        /// work queue that a fast transfer keeps busy, so URLSession alone cannot always meet this:
        /// the figure is measured and reported, and the known gap recorded rather than hidden.
        /// An endless fast body on `transport`, abandoned by the caller `how`: cancelled after 100 ms,
        /// past a 0.3 s deadline, or over a 4 MiB size limit. Answers whether the call failed, what it
        /// failed with, and how long after that the server saw its connection end (`nil`: not within
        /// 10 s).
        static func abandonEndlessBody(_ how: String, on transport: any HTTPTransport) async throws
            -> (failure: HTTPClientError?, closedAfter: Duration?)
        {
            let server = try TestServer(response: .stream())
            defer { server.stop() }
            let host = server.baseURL
            let task = Task {
                await TestEndpoint(
                    host: host, endpoint: "endless", timeout: how == "deadline" ? 0.3 : 30,
                    maxResponseSize: how == "limit" ? 4 * 1024 * 1024 : nil, transport: transport
                )
                .request(type: Data.self)
            }
            if how == "cancel" {
                try await Task.sleep(for: .milliseconds(100))
                task.cancel()
            }
            let result = await task.value
            let failedAt = ContinuousClock.now
            let ended = await server.waitForConnectionEnd(index: 1, timeout: 10)
            return (result.failure, ended.map { $0 - failedAt })
        }

        @Test(arguments: ["cancel", "deadline", "limit"])
        func abandonedConnectionCloses(_ how: String) async throws {
            let (failure, closedAfter) = try await Self.abandonEndlessBody(how, on: URLSessionTransport())
            #expect(failure != nil)
            print(
                "abandoned transfer (\(how)): the server saw the connection end \(closedAfter.map { "\($0)" } ?? "not within 10 s") after the caller got \(failure.map { "\($0)" } ?? "-")"
            )
            withKnownIssue("corelibs' URLSessionTask.cancel() waits for a work queue a fast transfer holds", isIntermittent: true) {
                #expect(closedAfter.map { $0 < .seconds(2) } == true)
            }
        }

        /// While a large download runs on the shared default transport, small requests to another
        /// host should not slow down beyond 300 ms each. Corelibs serves every transfer from one work
        /// queue, so a fast transfer delays the others: measured and reported, the gap recorded.
        /// `LARGE_DOWNLOAD_MIB` sets the size: 64 by default, because on corelibs the download starves
        /// every URLSession test running beside it in the same process (`.ci/run` measures 2048 alone).
        @Test func largeDownloadDoesNotSlowOtherHosts() async throws {
            let mebibytes = Int64(ProcessInfo.processInfo.environment["LARGE_DOWNLOAD_MIB"] ?? "") ?? 64
            let big = try TestServer(response: .stream(total: mebibytes * 1024 * 1024, announceLength: true))
            defer { big.stop() }
            let small = try TestServer(response: .json("{}"))
            defer { small.stop() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("er-large-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let bigHost = big.baseURL
            let download = Task {
                await TestEndpoint(host: bigHost, endpoint: "big", timeout: 120).download(to: folder.appendingPathComponent("big.bin"))
            }
            try await Task.sleep(nanoseconds: 100_000_000)
            var worst = Duration.zero
            var failures: [HTTPClientError] = []
            var samples = 0
            while samples < 20 {
                let start = ContinuousClock.now
                // A starved request can outlast a short timeout; 30 s keeps the figure measurable.
                let result = await TestEndpoint(host: small.baseURL, endpoint: "small", timeout: 30).request(type: EmptyResponse.self)
                if let failure = result.failure { failures.append(failure) }
                worst = max(worst, ContinuousClock.now - start)
                samples += 1
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            download.cancel()
            _ = await download.value
            print(
                "small requests to another host during a \(mebibytes) MiB download: slowest \(worst) of \(samples), \(failures.count) failed \(failures.first.map { "(\($0))" } ?? "")"
            )
            // Only a timeout is starvation; any other failure is a defect of ours.
            #expect(failures.allSatisfy { if case .timedOut = $0 { true } else { false } })
            withKnownIssue("corelibs serves every URLSession transfer from one work queue", isIntermittent: true) {
                #expect(failures.isEmpty)
                #expect(worst < .milliseconds(300))
            }
        }
    }
}
