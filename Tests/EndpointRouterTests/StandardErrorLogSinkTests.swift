import EndpointRouter
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Serialized {
    /// `LogSink.standardError` writes `level: message` lines to file descriptor 2 without blocking the
    /// caller, and when a stalled stderr holds more than 10,000 lines back it drops the rest and says
    /// how many on the next line it writes. The test points descriptor 2 at a pipe for a moment and
    /// passes on anything else written there meanwhile.
    @Suite("LogSink.standardError")
    struct StandardErrorLogSinkTests {
        @Test func aStalledStandardErrorDropsLinesAndThenSaysHowMany() async throws {
            let marker = UUID().uuidString
            let captured = try await offThePool { try StandardErrorCapture.run(marker: marker) }
            let lines = captured.split(separator: "\n").map(String.init)
            #expect(lines.first { $0.contains(marker) } == "debug: flood \(marker) 0", "format is 'level: message'")
            let final = try #require(lines.firstIndex(of: "info: final \(marker)"), "the final line never arrived")
            let notice = try #require(final > 0 ? lines[final - 1] : nil)
            #expect(notice.hasPrefix("[") && notice.hasSuffix(" log lines dropped]"), "\(notice)")
            let dropped = Int(notice.dropFirst().prefix { $0.isNumber }) ?? 0
            let flood = lines.filter { $0.hasPrefix("debug: flood \(marker) ") }.count
            #expect(dropped > 0)
            #expect(flood >= 10_000, "at least the 10,000 pending lines are written")
            #expect(flood + dropped >= StandardErrorCapture.floodCount, "every line is either written or counted as dropped")
        }
    }
}

/// Points descriptor 2 at a pipe, floods `LogSink.standardError` while nobody reads, then drains.
enum StandardErrorCapture {
    static let floodCount = 15_000

    static func run(marker: String) throws -> String {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw CaptureError("pipe failed: errno \(errno)") }
        let saved = dup(2)
        guard saved >= 0, dup2(ends[1], 2) >= 0 else { throw CaptureError("dup2 failed: errno \(errno)") }
        var text = ""
        defer {
            dup2(saved, 2)
            close(saved)
            close(ends[0])
            close(ends[1])
            // What other tests wrote to stderr meanwhile goes where it was meant to.
            let others = text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.contains(marker) }.joined(separator: "\n")
            if !others.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                FileHandle.standardError.write(Data((others + "\n").utf8))
            }
        }
        // Nothing reads yet: the pipe fills after a few KiB and the writer's queue stalls.
        for index in 0..<floodCount {
            LogSink.standardError.write(.debug, "flood \(marker) \(index)", [:])
        }
        let deadline = ContinuousClock.now + .seconds(20)
        var finalSeen = false
        var quietSince: ContinuousClock.Instant?
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 20) > 0 {
                let count = read(ends[0], &buffer, buffer.count)
                if count > 0 {
                    text += String(decoding: buffer[0..<count], as: UTF8.self)
                    quietSince = nil
                    continue
                }
            }
            if finalSeen {
                // Wait until the writer has been quiet for 200 ms, so nothing of ours is left for the real stderr.
                let now = ContinuousClock.now
                if let since = quietSince, now - since > .milliseconds(200) { break }
                if quietSince == nil { quietSince = now }
            } else if text.contains("info: final \(marker)") {
                finalSeen = true
            } else {
                // Dropped while the queue is still full; written once it has room.
                LogSink.standardError.write(.info, "final \(marker)", [:])
            }
        }
        return text
    }
}

struct CaptureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
