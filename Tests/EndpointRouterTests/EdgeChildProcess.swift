import Foundation

@testable import EndpointRouter

#if canImport(Glibc)
    import Glibc
#endif

/// Why an edge-matrix helper could not set up (a missing tool, a tool that failed, a server that
/// did not listen); the text says what to install or what went wrong.
struct EdgeSetupError: Error, CustomStringConvertible {
    let description: String
}

/// The command-line tools the edge matrix uses (`openssl`, `python3`), found on PATH and run with
/// a bound, so a stuck tool fails the test instead of hanging the run.
enum EdgeTools {
    /// The executable `name` on PATH, or an error saying how to install it.
    static func find(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw EdgeSetupError(
            description: "the edge matrix needs `\(name)` on PATH; install it (Debian: apt-get install -y openssl python3)")
    }

    /// Runs `executable` to completion within 30 s (killed after that) with stdin from
    /// /dev/null; returns its standard output, or throws with its output if it did not exit 0.
    @discardableResult
    static func run(_ executable: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let pid = process.processIdentifier
        let done = DispatchSemaphore(value: 0)
        Thread {
            if done.wait(timeout: .now() + 30) == .timedOut { kill(pid, SIGKILL) }
        }.start()
        // Standard error is drained on another thread so a chatty tool cannot fill its pipe
        // while standard output is read here.
        let errorText = Locked("")
        let drained = DispatchSemaphore(value: 0)
        Thread {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            errorText.withLock { $0 = text }
            drained.signal()
        }.start()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        drained.wait()
        process.waitUntilExit()
        done.signal()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let shown = arguments.joined(separator: " ")
            throw EdgeSetupError(
                description: "\(executable.lastPathComponent) \(shown) failed: \(text) \(errorText.withLock { $0 })")
        }
        return text
    }
}

/// A Python script run as a child process for one test: it writes the port it listens on to
/// `port` in `folder` and its log lines to `log` there. Bounded twice: the script must end by
/// itself within 60 s (each script checks its own deadline), and ``stop()`` (or deinit) kills it
/// with SIGKILL and removes the folder.
// @unchecked Sendable: every stored property is a `let`; `process` (not Sendable) is only read
// and signalled in `stop()`, which `stopLock` serialises (a test's `stop()` and `deinit`).
final class EdgeChildProcess: @unchecked Sendable {
    /// The port the script listens on, on 127.0.0.1.
    let port: Int
    /// The folder of the script's files (port, log, and whatever its owner put there).
    let folder: URL
    private let process: Process
    private let stopLock = NSLock()

    private init(port: Int, folder: URL, process: Process) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    deinit { stop() }

    /// Starts `script` with `python3 -c script folder arguments…` in a new folder, and waits up
    /// to 30 s (the machine may be busy) for it to write its port. Runs on a thread of its own,
    /// as the wait blocks.
    static func start(script: String, arguments: [String]) async throws -> EdgeChildProcess {
        try await offThePool { try launch(script: script, arguments: arguments) }
    }

    private static func launch(script: String, arguments: [String]) throws -> EdgeChildProcess {
        let python = try EdgeTools.find("python3")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("edge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            let process = Process()
            process.executableURL = python
            process.arguments = ["-c", script, folder.path] + arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let portFile = folder.appendingPathComponent("port")
            let deadline = Date(timeIntervalSinceNow: 30)
            while Date() < deadline && process.isRunning {
                if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                    return EdgeChildProcess(port: port, folder: folder, process: process)
                }
                usleep(10_000)
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            throw EdgeSetupError(description: "a Python test server did not start listening within 30 s")
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// What the script logged so far, one entry per line.
    func logLines() -> [String] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Kills the child and removes its folder. Idempotent.
    func stop() {
        stopLock.lock()
        defer { stopLock.unlock() }
        if process.isRunning {
            // SIGKILL: a SIGTERM can be blocked by the mask the child inherited.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
