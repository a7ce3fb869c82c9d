#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    extension Serialized {
        /// A call that comes while a loop dozes (``CurlIdleSpin``) is taken at once, not when the doze
        /// ends. Among the figures: it compares call times, which the parallel suite's other work moves.
        @Suite struct CurlDozeTests {
            /// The loop learns a gap of 9 ms (1 ms budget: it then dozes until 8 ms into the next idle
            /// stretch); a call made 1 ms into it would wait about 7 ms more if the doze were not woken.
            /// Against calls the loop met awake (each one 9 ms after the last, while it spins), medians
            /// of five, so that the bound holds on a slow machine and under a sanitizer.
            @Test func aCallDuringADozeIsTakenAtOnce() async throws {
                let server = try TestServer { _ in .json("{}") }
                defer { server.stop() }
                var configuration = CurlTransport.Configuration()
                configuration.loopCount = 1
                configuration.idleSpin = .milliseconds(1)
                let transport = try CurlTransport(configuration: configuration)
                defer { transport.shutdown() }
                let clock = ContinuousClock()
                var awake: [Duration] = []
                var early: [Duration] = []
                for round in 0..<5 {
                    for index in 0..<3 {
                        _ = await CurlLoopGroupTests.get(server, "t\(round)-\(index)", on: transport)
                        try await Task.sleep(for: .milliseconds(9))
                    }
                    var start = clock.now
                    _ = await CurlLoopGroupTests.get(server, "d\(round)", on: transport)
                    awake.append(clock.now - start)
                    try await Task.sleep(for: .milliseconds(1))
                    start = clock.now
                    let result = await CurlLoopGroupTests.get(server, "e\(round)", on: transport)
                    early.append(clock.now - start)
                    #expect((try? result.get()) == 200, "\(result)")
                }
                let (awakeMedian, earlyMedian) = (awake.sorted()[2], early.sorted()[2])
                #expect(
                    earlyMedian < awakeMedian + .milliseconds(4),
                    "calls made during a doze took \(early), calls met awake \(awake)")
            }
        }
    }
#endif
