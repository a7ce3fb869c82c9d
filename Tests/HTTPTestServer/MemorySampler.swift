import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Samples this process's resident memory every 2 ms on a dedicated thread, so a test can assert that a
/// transfer was streamed rather than buffered (its peak growth stays far below the transfer size).
///
/// Measures the whole process, so other tests running in parallel add noise; compare against generous
/// bounds, e.g. "grew by less than a quarter of the body size".
public final class MemorySampler: Sendable {
    private let state = SamplerState()

    /// A sampler that is not yet running.
    public init() {}

    deinit {
        _ = state.finish()
    }

    /// Records the current resident size as the baseline and starts sampling; does nothing if already running.
    public func start() {
        guard state.begin(baseline: Self.residentBytes()) else { return }
        let thread = Thread { [state] in
            Thread.current.name = "MemorySampler"
            state.sampleUntilStopped()
        }
        thread.start()
    }

    /// Stops sampling (after one last sample) and returns the baseline and the highest resident size seen.
    /// Returns the last results again if the sampler is not running.
    @discardableResult
    public func stop() -> (baselineBytes: Int, peakBytes: Int) {
        if state.finish() {
            state.observe(Self.residentBytes())
        }
        return state.results
    }

    /// How far the resident size rose above the baseline at its peak, so far; never negative.
    public var peakGrowthBytes: Int {
        let results = state.results
        return max(0, results.peakBytes - results.baselineBytes)
    }

    /// Waits until the process's resident memory has held within 1 MiB for `quietFor`, at most `atMost`,
    /// and returns how long it waited.
    ///
    /// Call it before ``start()``: the figure is the process's, so a transfer an earlier test abandoned
    /// (corelibs keeps reading an abandoned fast body on its one work queue until the socket closes)
    /// would otherwise count against the test that measures next. A figure stands for the test's own
    /// transfer only when the process is quiet when it starts.
    @discardableResult
    public static func settle(quietFor: Duration = .milliseconds(300), atMost: Duration = .seconds(10)) async -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        var window: [(at: ContinuousClock.Instant, bytes: Int)] = []
        while clock.now - start < atMost {
            let now = clock.now
            window.append((now, residentBytes()))
            window.removeAll { now - $0.at > quietFor }
            if let first = window.first, now - first.at >= quietFor - .milliseconds(20) {
                let sizes = window.map(\.bytes)
                if let low = sizes.min(), let high = sizes.max(), high - low < 1024 * 1024 { break }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return clock.now - start
    }

    /// The process's current resident set size in bytes (`VmRSS` on Linux), or 0 if it cannot be read.
    public static func residentBytes() -> Int {
        #if os(Linux)
            return linuxResidentBytes()
        #elseif canImport(Darwin)
            var info = mach_task_basic_info()
            var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
            let result = withUnsafeMutablePointer(to: &info) {
                $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                    task_info(currentTaskPort, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
                }
            }
            return result == KERN_SUCCESS ? Int(info.resident_size) : 0
        #else
            return 0
        #endif
    }

    #if os(Linux)
        /// Parses `VmRSS:   12345 kB` out of /proc/self/status using plain system calls, so that sampling every
        /// 2 ms does not itself allocate Foundation objects and disturb what it measures.
        private static func linuxResidentBytes() -> Int {
            let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return 0 }
            defer { close(fd) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8192) { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                var length = 0
                while length < buffer.count {
                    let count = read(fd, base + length, buffer.count - length)
                    if count > 0 {
                        length += count
                    } else if !(count < 0 && errno == EINTR) {
                        break
                    }
                }
                let text = UnsafeBufferPointer(start: base, count: length)
                let key = Array("VmRSS:".utf8)
                var lineStart = 0
                while lineStart < length {
                    var lineEnd = lineStart
                    while lineEnd < length && text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                    if lineEnd - lineStart > key.count && text[lineStart..<(lineStart + key.count)].elementsEqual(key) {
                        var kilobytes = 0
                        for byte in text[(lineStart + key.count)..<lineEnd] where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                            kilobytes = kilobytes &* 10 &+ Int(byte - UInt8(ascii: "0"))
                        }
                        return kilobytes &* 1024
                    }
                    lineStart = lineEnd + 1
                }
                return 0
            }
        }
    #endif
}

#if canImport(Darwin)
    /// This task's port, fetched once: reading the SDK's `mach_task_self_` global is a strict-concurrency error
    /// with older SDKs, and every `task_self_trap()` call adds a port reference.
    private let currentTaskPort: mach_port_t = task_self_trap()
#endif

/// The sampler's mutable state, kept apart so that ``MemorySampler`` itself is checked `Sendable` and the
/// sampling thread does not keep the sampler alive.
///
/// `@unchecked Sendable` because `condition` guards every field; it also lets `finish()` wake the
/// sampling thread's 2 ms wait and wait for that thread to exit.
private final class SamplerState: @unchecked Sendable {
    private let condition = NSCondition()
    private var running = false
    private var threadActive = false
    private var baseline = 0
    private var peak = 0

    /// `false` if already running.
    func begin(baseline: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !running, !threadActive else { return false }
        running = true
        threadActive = true
        self.baseline = baseline
        peak = baseline
        return true
    }

    func sampleUntilStopped() {
        while true {
            observe(MemorySampler.residentBytes())
            condition.lock()
            if running {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.002))
            }
            let keepGoing = running
            if !keepGoing {
                threadActive = false
                condition.broadcast()
            }
            condition.unlock()
            if !keepGoing { return }
        }
    }

    func observe(_ resident: Int) {
        condition.lock()
        peak = max(peak, resident)
        condition.unlock()
    }

    /// Stops sampling and waits for the sampling thread to exit, so no sample lands after `stop()` returns.
    /// Returns whether sampling was running.
    func finish() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let wasRunning = running
        running = false
        condition.broadcast()
        while threadActive { condition.wait() }
        return wasRunning
    }

    var results: (baselineBytes: Int, peakBytes: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (baselineBytes: baseline, peakBytes: peak)
    }
}
