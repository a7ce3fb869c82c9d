#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// A loop whose transfers ended spins for the next call only while calls come that soon, and a
    /// loop waiting in `curl_multi_poll` is woken by the first command posted to it, spin or none.
    struct CurlIdleSpinTests {
        @Test(arguments: [
            (Duration.microseconds(100), UInt64(100_000)),
            (.zero, 0),
            (.nanoseconds(-5), 0),
            (.seconds(-1), 0),
            (.microseconds(999) + .nanoseconds(999), 999_999),
            (.milliseconds(5), 1_000_000),
            (.seconds(2), 1_000_000),
        ])
        func theBudgetIsAtMostAMillisecond(budget: Duration, nanoseconds: UInt64) {
            #expect(CurlIdleSpin(budget: budget).budget == nanoseconds)
        }

        @Test func theFirstIdleStretchSpinsForTheBudget() {
            var spin = CurlIdleSpin(budget: .microseconds(100))
            #expect(!spin.isIdle)
            #expect(spin.ranOutOfTransfers(at: 1_000) == .spin(until: 101_000))
            #expect(spin.isIdle)
        }

        @Test func aCallThatComesSoonKeepsTheSpin() {
            var spin = CurlIdleSpin(budget: .microseconds(100))
            for start in stride(from: UInt64(0), to: 10_000_000, by: 1_000_000) {
                #expect(spin.ranOutOfTransfers(at: start) == .spin(until: start + 100_000))
                spin.tookCommands(at: start + 40_000)
                #expect(!spin.isIdle)
            }
        }

        /// After calls that came later than the budget, the loop sleeps until a budget before the
        /// next is due (the shorter of the last two gaps) and spins until half a budget after; after
        /// ones later than ten budgets, it waits.
        @Test func laterCallsAreMetByADozeThenASpin() {
            var spin = CurlIdleSpin(budget: .microseconds(100))
            _ = spin.ranOutOfTransfers(at: 0)
            spin.tookCommands(at: 250_000)
            #expect(spin.ranOutOfTransfers(at: 1_000_000) == .doze(until: 1_150_000, thenSpinUntil: 1_300_000))
            spin.tookCommands(at: 1_000_000 + 300_000)
            #expect(spin.ranOutOfTransfers(at: 2_000_000) == .doze(until: 2_150_000, thenSpinUntil: 2_300_000))
            spin.tookCommands(at: 2_000_000 + 1_000_000)
            #expect(spin.ranOutOfTransfers(at: 4_000_000) == .doze(until: 4_200_000, thenSpinUntil: 4_350_000))
            spin.tookCommands(at: 4_000_000 + 1_000_000)
            #expect(spin.ranOutOfTransfers(at: 6_000_000) == .doze(until: 6_900_000, thenSpinUntil: 7_050_000))
            spin.tookCommands(at: 6_000_000 + 1_000_001)
            #expect(spin.ranOutOfTransfers(at: 8_000_000) == .doze(until: 8_900_000, thenSpinUntil: 9_050_000))
            spin.tookCommands(at: 8_000_000 + 5_000_000)
            #expect(spin.ranOutOfTransfers(at: 14_000_000) == .wait)
            spin.tookCommands(at: 14_000_000 + 40_000)
            #expect(spin.ranOutOfTransfers(at: 15_000_000) == .spin(until: 15_100_000))
        }

        /// One late call among quick ones keeps the spin: the quick one before it is still expected.
        @Test func oneLateCallAmongQuickOnesKeepsTheSpin() {
            var spin = CurlIdleSpin(budget: .microseconds(100))
            _ = spin.ranOutOfTransfers(at: 0)
            spin.tookCommands(at: 40_000)
            _ = spin.ranOutOfTransfers(at: 1_000_000)
            spin.tookCommands(at: 1_000_000 + 180_000)
            #expect(spin.expectedGap == 40_000)
            #expect(spin.ranOutOfTransfers(at: 2_000_000) == .spin(until: 2_100_000))
        }

        /// A command posted just before the stretch began (its time earlier than the stretch's
        /// start) counts as no gap, not as a wrapped-around one.
        @Test func aCommandFromBeforeTheStretchIsNoGap() {
            var spin = CurlIdleSpin(budget: .microseconds(100))
            _ = spin.ranOutOfTransfers(at: 1_000_000)
            spin.tookCommands(at: 999_000)
            #expect(spin.lastGap == 0)
            #expect(spin.ranOutOfTransfers(at: 2_000_000) == .spin(until: 2_100_000))
        }

        /// Commands a busy loop takes measure no idle stretch: they neither start nor stop the spin.
        @Test func commandsWhileBusyChangeNothing() {
            var spin = CurlIdleSpin(budget: .microseconds(100))
            _ = spin.ranOutOfTransfers(at: 0)
            spin.tookCommands(at: 2_000_000)
            let stopped = spin
            spin.tookCommands(at: 2_000_010)
            spin.tookCommands(at: 9_000_000)
            #expect(spin == stopped)
            #expect(spin.ranOutOfTransfers(at: 10_000_000) == .wait)
        }

        @Test func aZeroBudgetNeverSpins() {
            var spin = CurlIdleSpin(budget: .zero)
            for start in stride(from: UInt64(0), to: 1_000_000, by: 100_000) {
                #expect(spin.ranOutOfTransfers(at: start) == .wait)
                spin.tookCommands(at: start + 1)
            }
        }

        /// A loop asleep in `curl_multi_poll` (which it leaves by itself only after a second) is woken
        /// by the next call at once, whether it spun first or not, and one spinning takes the call
        /// without a wake-up. 30 calls in a row in well under the second a missed wake-up would cost
        /// each of them, and each call after a pause longer than any spin.
        @Test(arguments: [Duration.zero, .microseconds(100), .milliseconds(1)])
        func aWaitingLoopIsWokenByTheNextCall(idleSpin: Duration) async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            var configuration = CurlTransport.Configuration()
            configuration.loopCount = 1
            configuration.idleSpin = idleSpin
            let transport = try CurlTransport(configuration: configuration)
            defer { transport.shutdown() }
            let clock = ContinuousClock()
            let inARow = await clock.measure {
                for index in 0..<30 {
                    let result = await CurlLoopGroupTests.get(server, "n\(index)", on: transport)
                    #expect((try? result.get()) == 200, "\(result)")
                }
            }
            #expect(inARow < .seconds(10), "30 calls in a row took \(inARow)")
            for index in 0..<3 {
                try await Task.sleep(for: .milliseconds(20))
                let start = clock.now
                let result = await CurlLoopGroupTests.get(server, "p\(index)", on: transport)
                #expect((try? result.get()) == 200, "\(result)")
                #expect(clock.now - start < .milliseconds(900), "a call after a pause took \(clock.now - start)")
            }
        }
    }
#endif
