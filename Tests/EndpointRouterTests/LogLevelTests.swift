import EndpointRouter
import Testing

/// Log levels order from least to most severe, so a sink can filter with `level >= .warning`.
@Suite("Log level order")
struct LogLevelTests {
    @Test func levelsSortFromTraceToCritical() {
        let shuffled: [LogLevel] = [.error, .trace, .critical, .info, .warning, .debug, .notice]
        #expect(shuffled.sorted() == [.trace, .debug, .info, .notice, .warning, .error, .critical])
    }

    @Test func comparisonIsStrict() {
        #expect(LogLevel.debug < .error)
        #expect(!(LogLevel.error < .debug))
        #expect(!(LogLevel.info < .info))
        #expect(LogLevel.warning >= .warning)
        #expect([LogLevel.info, .critical, .debug].max() == .critical)
    }
}
