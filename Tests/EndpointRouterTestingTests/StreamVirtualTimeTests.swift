import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// Issue 40, streams: a stream's `idleTimeout` and `totalTimeout` are measured on the call's clock
/// when the transport is simulated, so a stub's 30 s pause under a 2 s idle timeout ends the stream
/// at 2 s of virtual time, at once.
@Suite("Stream timeouts in virtual time")
struct StreamVirtualTimeTests {
    /// A line, 30 s of silence, a line the timeouts below never let through.
    static let quiet = StubTransport().on(.get, "/chat", respond: .stream([.chunk("a\n"), .pause(30), .chunk("b\n")]))

    @Test func aQuietStreamEndsAtItsTotalTimeoutOnTheClock() async {
        let clock = VirtualClock()
        let drained = await bounded {
            await withOverride(TaskOverride(transport: Self.quiet, clock: clock)) {
                await drainLines(ChatAPI.chat.lines(limits: StreamLimits(totalTimeout: 5)))
            }
        }
        #expect(drained?.lines == ["a"])
        #expect(drained?.error == .timedOut)
        #expect(clock.elapsed == .seconds(5))
    }

    @Test func aQuietStreamEndsAtItsIdleTimeoutOnTheClock() async {
        let clock = VirtualClock()
        let drained = await bounded {
            await withOverride(TaskOverride(transport: Self.quiet, clock: clock)) {
                await drainLines(ChatAPI.chat.lines(limits: StreamLimits(idleTimeout: 2)))
            }
        }
        #expect(drained?.lines == ["a"])
        #expect(drained?.error == .timedOut)
        // The clock stops at the idle alarm rather than at the end of the stub's pause.
        #expect(clock.elapsed == .seconds(2))
    }

    @Test func eachPieceStartsTheIdleTimeoutAgainOnTheClock() async {
        let clock = VirtualClock()
        let stub = StubTransport().on(
            .get, "/chat", respond: .stream([.chunk("a\n"), .pause(1.5), .chunk("b\n"), .pause(1.5), .chunk("c\n")]))
        let drained = await bounded {
            await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await drainLines(ChatAPI.chat.lines(limits: StreamLimits(idleTimeout: 2)))
            }
        }
        #expect(drained?.lines == ["a", "b", "c"])
        #expect(drained?.error == nil)
        #expect(clock.elapsed == .seconds(3))
    }

    @Test func aManualClockEndsAQuietStreamOnlyOnceAdvancedPastItsIdleTimeout() async {
        let clock = VirtualClock(.manually)
        let stream = Task {
            await withOverride(TaskOverride(transport: Self.quiet, clock: clock)) {
                await drainLines(ChatAPI.chat.lines(limits: StreamLimits(idleTimeout: 2)))
            }
        }
        #expect(await eventually { clock.pendingSleepers == 1 })
        clock.advance(by: .seconds(1))
        // Still within the idle timeout: the stub goes on sleeping.
        #expect(clock.pendingSleepers == 1)
        clock.advance(by: .seconds(1.5))
        let drained = await bounded { await stream.value }
        #expect(drained?.lines == ["a"])
        #expect(drained?.error == .timedOut)
        #expect(await eventually { clock.pendingSleepers == 0 })
    }

    @Test func theTotalTimeoutCountsFromTheStreamsStartOnTheClock() async {
        let clock = VirtualClock()
        // Pieces 1 s apart never go idle; the total of 2.5 s ends the stream after the third.
        let stub = StubTransport().on(.get, "/chat", respond: .endless(interval: 1) { "\($0)\n" })
        let drained = await bounded {
            await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await drainLines(ChatAPI.chat.lines(limits: StreamLimits(idleTimeout: 2, totalTimeout: 2.5)))
            }
        }
        #expect(drained?.lines == ["0", "1", "2"])
        #expect(drained?.error == .timedOut)
        #expect(clock.elapsed == .seconds(2.5))
    }
}

/// Every line of `stream` and the error that ended it, if any.
func drainLines(_ stream: ResponseStream<String>) async -> (lines: [String], error: HTTPClientError?) {
    var lines: [String] = []
    do throws(HTTPClientError) {
        for try await line in stream { lines.append(line) }
        return (lines, nil)
    } catch {
        return (lines, error)
    }
}

extension Serialized {
    /// The figure behind virtual stream timeouts: 30 s of stub silence under a 2 s idle and a 5 s
    /// total timeout end the stream in milliseconds of real time.
    @Suite("Stream timeouts in virtual time take no real time")
    struct StreamVirtualTimeFigures {
        @Test func idleAndTotalTimeoutsEndInMilliseconds() async {
            for limits in [StreamLimits(idleTimeout: 2), StreamLimits(totalTimeout: 5)] {
                let clock = VirtualClock()
                let (drained, seconds) = await measure {
                    await withOverride(TaskOverride(transport: StreamVirtualTimeTests.quiet, clock: clock)) {
                        await drainLines(ChatAPI.chat.lines(limits: limits))
                    }
                }
                #expect(drained.error == .timedOut)
                #expect(seconds < 0.5, "a timeout of \(clock.elapsed) in virtual time took \(seconds) s")
            }
        }
    }
}
