import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Serialized {
    /// Corelibs runs every URLSession of a process on one serial work queue, so one fast transfer
    /// delays everything else. These measure what that costs and whether anything within reach of a
    /// library (it does not: see the first test) shortens it. The figures are printed for the closing
    /// notes and CI logs; where corelibs makes a target impossible the expectation is a known issue,
    /// so a corelibs that fixes it shows up as an unexpected pass.
    ///
    /// Opt-in (`SHARED_QUEUE_FIGURES=1`): an abandoned fast body stalls every URLSession of the process
    /// for as long as corelibs takes to cancel it, so beside other suites they would make those miss
    /// their bounds. `.ci/run` runs the first two alone; `abandonedFastBodiesQueueTheirData` is run by
    /// hand, alone (`--filter abandonedFastBodiesQueueTheirData`): its 8 bodies keep corelibs busy
    /// for minutes after it, which a CI step must not wait for.
    @Suite(
        "URLSession's shared work queue on Linux",
        .enabled(if: ProcessInfo.processInfo.environment["SHARED_QUEUE_FIGURES"] != nil, "set SHARED_QUEUE_FIGURES=1 to measure")
    )
    struct SharedWorkQueueTests {
        /// A delegate that discards bodies: the fast transfer under test costs corelibs, not us.
        final class DiscardingDelegate: NSObject, URLSessionDataDelegate, Sendable {
            func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
        }

        /// Time from abandoning an endless fast body to the server seeing its connection end with a
        /// plain `cancel()`, on a raw session so that only corelibs is measured.
        ///
        /// This used to compare `suspend()` then `cancel()` as well, and showed no gain. It is gone
        /// because that pair crashes the process on corelibs 6.3.1 (`NativeProtocol.swift:69`, two runs
        /// in three here): `suspend()` queues a `stopLoading()` that, once `cancel()` has moved the task
        /// to `.canceling` without an error yet, reaches a `fatalError`. No code of the library calls
        /// `suspend()` on a task, and none may: a caller can cancel at any instant.
        @Test func cancelClosesAnAbandonedFastBody() async throws {
            let rounds = Int(ProcessInfo.processInfo.environment["CANCEL_ROUNDS"] ?? "") ?? 3
            var closes: [Duration] = []
            for _ in 0..<rounds {
                let server = try TestServer(response: .stream())
                let session = URLSession(configuration: .ephemeral, delegate: DiscardingDelegate(), delegateQueue: nil)
                // The server first, so that a body corelibs has not cancelled yet ends; the session
                // then on a thread of its own: invalidating waits for corelibs' work queue, which a
                // fast body keeps busy, and must not hold a thread of the cooperative pool (a CI run
                // hung here for its step's 300 s).
                defer {
                    server.stop()
                    Thread { session.invalidateAndCancel() }.start()
                }
                guard let url = URL(string: server.baseURL + "/endless") else { return }
                let task = session.dataTask(with: url)
                task.resume()
                try await Task.sleep(nanoseconds: 150_000_000)  // the body is flowing at full speed
                let abandoned = ContinuousClock.now
                // corelibs' cancel() waits for the work queue: never on the cooperative pool.
                Thread { task.cancel() }.start()
                let ended = await server.waitForConnectionEnd(index: 1, timeout: 10)
                closes.append(ended.map { $0 - abandoned } ?? .seconds(10))
            }
            closes.sort()
            let median = closes[closes.count / 2]
            print("abandoned fast body, raw URLSession: cancel() closed after \(closes) (median \(median))")
            withKnownIssue("corelibs closes an abandoned fast body only when its shared work queue gets to it", isIntermittent: true) {
                #expect(median < .seconds(1))
            }
        }

        /// Whether `suspend()` and `resume()` could give URLSession back-pressure for a streaming call:
        /// an endless fast body is suspended, then resumed, and the bytes the delegate receives are
        /// counted in each phase. Run by hand, alone (`--filter suspendAndResumeOfAFastBody`): it is a
        /// figure for the Streaming article, and corelibs' suspend is the kind of call that can take
        /// the process down (the test never cancels a suspended task, which is what crashes).
        ///
        /// Measured with corelibs 6.3.1, 10 runs (7 of a raw build of the same steps against a socket
        /// server, 3 of this test): suspending stopped the reading in 9 (0 bytes while suspended);
        /// `resume()` then restarted it in only 2 (the other 7 stalled for good, 0 bytes after it,
        /// and the test's session took a minute to tear down); in 1 run suspending did not stop the
        /// reading at all (565 MB received while "suspended"). Together with the crash of a `cancel()`
        /// that follows a `suspend()` (see the first test), that rules it out as back-pressure:
        /// `URLSessionTransport` never suspends, and a streaming call fails with `.responseTooLarge`
        /// when its consumer falls a buffer behind.
        @Test func suspendAndResumeOfAFastBody() async throws {
            let server = try TestServer(response: .stream())
            defer { server.stop() }
            let delegate = CountingDelegate()
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            guard let url = URL(string: server.baseURL + "/endless") else { return }
            let task = session.dataTask(with: url)
            task.resume()
            try await Task.sleep(for: .milliseconds(500))
            let flowing = delegate.count
            await Self.onAThread { task.suspend() }
            try await Task.sleep(for: .milliseconds(500))
            let suspendedFrom = delegate.count
            try await Task.sleep(for: .seconds(2))
            let suspendedTo = delegate.count
            await Self.onAThread { task.resume() }
            try await Task.sleep(for: .milliseconds(500))
            let resumed = delegate.count - suspendedTo
            print(
                "suspend()/resume() of a fast body, raw URLSession: \(flowing) bytes in the first 0.5 s; "
                    + "\(suspendedTo - suspendedFrom) bytes over 2 s while suspended; \(resumed) bytes in 0.5 s after resume()")
            withKnownIssue("corelibs' suspend() either does not stop reading or stops it for good", isIntermittent: true) {
                #expect(suspendedTo - suspendedFrom < 1024 * 1024)
                #expect(resumed > 1024 * 1024)
            }
        }

        /// Counts body bytes as they reach the delegate.
        final class CountingDelegate: NSObject, URLSessionDataDelegate, Sendable {
            private let received = Locked(0)
            var count: Int { received.withLock { $0 } }
            func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
                received.withLock { $0 += data.count }
            }
        }

        /// corelibs' task calls wait for its work queue: never on the cooperative pool.
        static func onAThread(_ body: @escaping @Sendable () -> Void) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread {
                    body()
                    continuation.resume()
                }
                .start()
            }
        }

        /// Small requests to another host right after an endless fast body was cut by its deadline,
        /// on the library's default transport: their 99th percentile should stay within 100 ms. Each
        /// transfer has a session of its own, so what they share is corelibs' process-wide queue. The
        /// printed figures pair each round's slowest small request with the moment the abandoned
        /// connection closed: a stall ends when corelibs finally gets to the cancel (in 6.3.1
        /// `cancel()` waits synchronously for that queue), which is what no library can shorten.
        @Test func smallRequestsAfterAnAbandonedEndlessBody() async throws {
            let rounds = Int(ProcessInfo.processInfo.environment["ABANDONED_ROUNDS"] ?? "") ?? 2
            let endless = try TestServer(response: .stream())
            let small = try TestServer(response: .json("{}"))
            let bulk = URLSessionTransport()
            let other = URLSessionTransport()
            // The servers first, so that a body corelibs has not cancelled yet ends before the
            // transports' sessions are invalidated.
            defer {
                endless.stop()
                small.stop()
                bulk.shutdown()
                other.shutdown()
            }
            var latencies: [Duration] = []
            var failures: [HTTPClientError] = []
            var pairs: [String] = []
            for round in 1...rounds {
                let cut = await TestEndpoint(
                    host: endless.baseURL, endpoint: "endless", timeout: 0.3, maxResponseSize: nil, transport: bulk
                )
                .request(type: Data.self)
                let cutAt = ContinuousClock.now
                #expect(cut.failure.map { if case .timedOut = $0 { true } else { false } } == true)
                var slowest = Duration.zero
                for _ in 0..<10 {
                    let start = ContinuousClock.now
                    // 3 s: a stalled request shows as a timeout without making the suite wait minutes.
                    let result = await TestEndpoint(host: small.baseURL, endpoint: "small", timeout: 3, transport: other)
                        .request(type: EmptyResponse.self)
                    let took = ContinuousClock.now - start
                    latencies.append(took)
                    slowest = max(slowest, took)
                    if let failure = result.failure { failures.append(failure) }
                }
                let closed = await endless.waitForConnectionEnd(index: round, timeout: 20).map { "\($0 - cutAt)" } ?? "not within 20 s"
                pairs.append("round \(round): slowest \(slowest), abandoned connection closed \(closed) after the cut")
            }
            latencies.sort()
            let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
            print(
                "small requests to another host after an abandoned endless body: p50 \(latencies[latencies.count / 2]), p99 \(p99) of \(latencies.count), \(failures.count) timed out; \(pairs.joined(separator: "; "))"
            )
            // A stall may reach the small request's deadline; any other failure is a defect of ours.
            #expect(failures.allSatisfy { if case .timedOut = $0 { true } else { false } })
            withKnownIssue("corelibs serves every URLSession from one work queue", isIntermittent: true) {
                #expect(failures.isEmpty)
                #expect(p99 <= .milliseconds(100))
            }
        }

        /// Resident memory while 8 endless fast bodies, each cut by a 200 ms deadline, are still being
        /// read by corelibs: until a cancel gets through the shared work queue, libcurl keeps reading
        /// at full speed and corelibs queues every piece for the session's delegate queue faster than
        /// it is drained, so the queue grows without bound. It should stay within 256 MiB.
        @Test func abandonedFastBodiesQueueTheirData() async throws {
            let server = try TestServer(response: .stream())
            defer { server.stop() }
            let transport = URLSessionTransport()
            defer { transport.shutdown() }
            let baseline = MemorySampler.residentBytes()
            let started = ContinuousClock.now
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        await TestEndpoint(
                            host: server.baseURL, endpoint: "endless/\(index)", timeout: 0.2, maxResponseSize: nil,
                            transport: transport
                        )
                        .request(type: Data.self).failure?.caseName ?? "success"
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            let answeredAfter = ContinuousClock.now - started
            var samples: [Int] = []
            for _ in 0..<10 {
                try await Task.sleep(nanoseconds: 500_000_000)
                samples.append((MemorySampler.residentBytes() - baseline) / (1024 * 1024))
            }
            print(
                "8 abandoned fast bodies on URLSession: answered \(outcomes) after \(answeredAfter); resident growth every 0.5 s after: \(samples) MiB"
            )
            // Every call ends with its deadline; how late is printed and tracked: with both cores
            // busy reading the abandoned bodies, 200 ms deadlines were answered after about 4 s.
            #expect(outcomes.allSatisfy { $0 == "timedOut" })
            withKnownIssue("corelibs keeps reading an abandoned body until its cancel gets through the shared queue", isIntermittent: true)
            {
                #expect((samples.max() ?? 0) <= 256)
                #expect(answeredAfter < .seconds(1))
            }
        }
    }
}
