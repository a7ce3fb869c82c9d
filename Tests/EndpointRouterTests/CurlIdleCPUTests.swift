#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    extension Serialized {
        /// A transport between calls burns no CPU: its loops spin at most `idleSpin` after their last
        /// transfer ends (``CurlIdleSpin``), then sleep. Among the figures: it reads the process's CPU
        /// time, which the parallel suite's other work would move.
        @Suite struct CurlIdleCPUTests {
            /// CPU time the process has used, all threads.
            static func processCPUTime() -> Duration {
                var time = timespec()
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
                return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
            }

            /// 20 calls in a row, so the loops spin after each with the longest budget, then 300 ms
            /// with no call: the process uses a few milliseconds of CPU in them, not the 300 ms a loop
            /// still spinning would.
            @Test func anIdleTransportSpinsNoLongerThanItsBudget() async throws {
                let server = try TestServer { _ in .json("{}") }
                defer { server.stop() }
                var configuration = CurlTransport.Configuration()
                configuration.idleSpin = .milliseconds(1)
                let transport = try CurlTransport(configuration: configuration)
                defer { transport.shutdown() }
                for index in 0..<20 {
                    let result = await CurlLoopGroupTests.get(server, "n\(index)", on: transport)
                    #expect((try? result.get()) == 200, "\(result)")
                }
                let before = Self.processCPUTime()
                try await Task.sleep(for: .milliseconds(300))
                let used = Self.processCPUTime() - before
                #expect(used < .milliseconds(60), "the process used \(used) of CPU in 300 ms without a call")
            }
        }
    }
#endif
