import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thrown when the system `gzip` tool cannot produce the requested data.
public struct GzipToolError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the test log.
    public let description: String
}

extension ScriptedResponse {
    /// How long `gzip` may run before it is killed, so a wedged tool cannot hang a test run.
    private static let gzipTimeLimit: TimeInterval = 30

    /// Gzip data that inflates to `expandedBytes` zero bytes (about 1000:1), for testing that a client caps
    /// what it decompresses. Serve it with `Content-Encoding: gzip`, e.g. via ``gzipEncoded(_:status:headers:)``.
    /// Runs the system `gzip -c -9`, feeding it zeros through a pipe, so the expanded data never exists in
    /// memory; fails if no `gzip` is installed or it takes longer than 30 seconds (about 3 GiB of input).
    /// Blocks the calling thread meanwhile. Results are cached per size for the life of the process, since
    /// gzip needs roughly 10 s per GiB.
    public static func gzipBomb(expandedBytes: Int) throws -> Data {
        let size = max(0, expandedBytes)
        if let cached = gzipBombCache.value(for: size) { return cached }
        let bomb = try runGzip(.zeros(size))
        gzipBombCache.store(bomb, for: size)
        return bomb
    }

    /// `data` compressed by the system `gzip -c -9`, for ordinary `Content-Encoding: gzip` responses.
    public static func gzipCompressed(_ data: Data) throws -> Data {
        try runGzip(.bytes(data))
    }

    /// A valid gzip header followed by a deflate stream that is invalid from its first block (reserved
    /// block type), so every decoder must fail rather than return partial data. Serve it with
    /// `Content-Encoding: gzip` to test a client's handling of corrupt compressed bodies.
    public static var corruptGzip: Data {
        // Magic, deflate method, no flags, no mtime, no extra flags, OS unknown.
        let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]
        // 0xFF starts a final block of type 3, which RFC 1951 reserves as an error; the rest is filler.
        let garbage: [UInt8] = [0xFF] + (0..<63).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }
        return Data(header + garbage)
    }

    /// A response carrying already-compressed `gzip` bytes with `Content-Encoding: gzip` (before `headers`).
    public static func gzipEncoded(_ gzip: Data, status: Int = 200, headers: [(name: String, value: String)] = []) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Content-Encoding", "gzip")] + headers, body: gzip)
    }

    // MARK: Running gzip

    private enum GzipInput: Sendable {
        case zeros(Int)
        case bytes(Data)
    }

    private static func runGzip(_ input: GzipInput) throws -> Data {
        guard let tool = ["/bin/gzip", "/usr/bin/gzip"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw GzipToolError(description: "no gzip executable at /bin/gzip or /usr/bin/gzip")
        }
        // Pipe objects rather than raw descriptors, because Foundation closes the child's ends of a Pipe in
        // this process after launch; with plain FileHandles who closes what differs between platforms.
        let toGzip = Pipe()
        let fromGzip = Pipe()
        // Other processes the tests spawn meanwhile must not inherit our ends: a leaked write end would keep
        // gzip from ever seeing the end of its input. (The child gets its ends through dup2, which drops the flag.)
        for handle in [
            toGzip.fileHandleForReading, toGzip.fileHandleForWriting, fromGzip.fileHandleForReading, fromGzip.fileHandleForWriting,
        ] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-c", "-9"]
        process.standardInput = toGzip
        process.standardOutput = fromGzip
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw GzipToolError(description: "could not start \(tool): \(error)")
        }

        let pid = process.processIdentifier
        let finished = DispatchSemaphore(value: 0)
        let timedOut = Flag()
        let watchdog = Thread {
            if finished.wait(timeout: .now() + gzipTimeLimit) == .timedOut {
                timedOut.set()
                kill(pid, SIGKILL)
            }
        }
        watchdog.start()

        // Writing from another thread while this one reads keeps both pipes moving: gzip blocks on a full
        // output pipe, and we would block on its full input pipe if we wrote and read on the same thread.
        let writerDone = DispatchSemaphore(value: 0)
        let inputHandle = toGzip.fileHandleForWriting
        let writer = Thread {
            feed(input, to: inputHandle.fileDescriptor)
            // Closing is what tells gzip its input is complete.
            try? inputHandle.close()
            writerDone.signal()
        }
        writer.start()

        let output = readToEnd(fromGzip.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        finished.signal()
        writerDone.wait()

        if timedOut.isSet {
            throw GzipToolError(description: "gzip did not finish within \(Int(gzipTimeLimit)) s and was killed")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw GzipToolError(
                description: "gzip failed (reason \(process.terminationReason.rawValue), status \(process.terminationStatus))")
        }
        return output
    }

    /// Writes the input in 1 MiB pieces. SIGPIPE is blocked on this thread so that a gzip that died (or was
    /// killed) shows up as an EPIPE error here instead of terminating the test process.
    private static func feed(_ input: GzipInput, to fd: Int32) {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        defer {
            #if canImport(Glibc)
                // Discard a SIGPIPE left pending by a failed write, so it cannot outlive the thread's mask.
                var none = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&blocked, nil, &none) == SIGPIPE {}
            #endif
        }
        switch input {
        case .zeros(let count):
            let piece = [UInt8](repeating: 0, count: 1 << 20)
            var remaining = count
            while remaining > 0 {
                let size = min(piece.count, remaining)
                guard piece.withUnsafeBytes({ writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<size])) }) else { return }
                remaining -= size
            }
        case .bytes(let data):
            var offset = 0
            while offset < data.count {
                let size = min(1 << 20, data.count - offset)
                let ok = data.withUnsafeBytes { writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + size)])) }
                guard ok else { return }
                offset += size
            }
        }
    }

    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, base + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if !(written < 0 && errno == EINTR) {
                return false
            }
        }
        return true
    }

    private static func readToEnd(_ fd: Int32) -> Data {
        var output = Data()
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: scratch[..<count])
            } else if !(count < 0 && errno == EINTR) {
                return output
            }
        }
    }
}

/// Bombs already produced, by expanded size; each is only about a thousandth of its expanded size.
private let gzipBombCache = GzipBombCache()

/// A lock-protected dictionary; `@unchecked Sendable` because `lock` guards `bombs`.
private final class GzipBombCache: @unchecked Sendable {
    private let lock = NSLock()
    private var bombs: [Int: Data] = [:]

    func value(for size: Int) -> Data? {
        lock.lock()
        defer { lock.unlock() }
        return bombs[size]
    }

    func store(_ bomb: Data, for size: Int) {
        lock.lock()
        bombs[size] = bomb
        lock.unlock()
    }
}

/// A set-once flag shared between the watchdog thread and the caller.
///
/// `@unchecked Sendable` because `lock` guards `value`, its only mutable field.
private final class Flag: @unchecked Sendable {
    // A lock rather than an atomic keeps this free of platform-specific imports.
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
