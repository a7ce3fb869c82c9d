#if os(Linux)
    import Testing

    @testable import EndpointRouter

    /// libcurl's own timeout is a backstop that must never end a call before the library's deadline:
    /// a second after it, rounded up. CI once saw a 1-second call end 0.5 ms early because `0.9995 s`
    /// left was truncated to `1,000 ms` and libcurl measures on its own clock in whole milliseconds.
    struct CurlBackstopTests {
        @Test(arguments: [
            (Duration.milliseconds(999) + .microseconds(500), 2000),
            (.seconds(1), 2000),
            (.milliseconds(1) + .nanoseconds(1), 1002),
            (.nanoseconds(1), 1001),
            (.milliseconds(1500), 2500),
            (.seconds(86_399) + .milliseconds(999), 86_399_999 + 1000),
        ])
        func isASecondAfterTheDeadlineRoundedUp(remaining: Duration, milliseconds: Int) {
            #expect(CurlExchange.backstopMilliseconds(remaining: remaining) == milliseconds)
        }

        /// Never under the time left plus a second, whatever the fraction.
        @Test func neverEndsBeforeTheDeadline() {
            for step in stride(from: 0, to: 5_000_000, by: 7_919) {
                let remaining = Duration.microseconds(step) + .nanoseconds(step % 1000)
                let backstop = CurlExchange.backstopMilliseconds(remaining: remaining) ?? 0
                #expect(Duration.milliseconds(backstop) >= remaining + .seconds(1), "\(remaining)")
            }
        }

        @Test func aPassedDeadlineStillGetsASecondAndNoDeadlineGetsNone() {
            #expect(CurlExchange.backstopMilliseconds(remaining: .zero) == 1000)
            #expect(CurlExchange.backstopMilliseconds(remaining: .milliseconds(-1500)) == 1000)
            #expect(CurlExchange.backstopMilliseconds(remaining: .seconds(86_400)) == nil)
        }
    }
#endif
