import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server on 127.0.0.1 (ephemeral port) that answers every connection with a script of raw socket
/// steps, for the faults ``TestServer`` is too well-behaved to produce: bytes that are not HTTP, header
/// bytes that are not UTF-8, a body after a `204`, a reset (RST) instead of an answer.
///
/// Each connection reads one request head (up to the blank line), then plays ``steps`` in order and
/// closes. Nothing is parsed beyond finding the end of the head, so requests with a body are not
/// supported; the fault tests only send GETs.
///
/// ```swift
/// let server = try RawServer(steps: [.send(Array("HTTX/9 what\r\n\r\n".utf8)), .close])
/// defer { server.stop() }
/// ```
public final class RawServer: Sendable {
    /// One thing the server does on a connection after reading the request head.
    public enum Step: Sendable, Equatable {
        /// Writes these bytes as they are.
        case send([UInt8])
        /// Waits this many seconds (cut short by ``RawServer/stop()``).
        case pause(TimeInterval)
        /// Closes with a reset (`SO_LINGER` 0) instead of an orderly close: the client sees ECONNRESET.
        case reset
    }

    /// The port the server listens on.
    public let port: Int
    /// What every connection is answered with.
    public let steps: [Step]
    private let listenFD: Int32
    private let state = RawServerState()

    /// Binds 127.0.0.1 on an ephemeral port and starts answering every connection with `steps`,
    /// followed by an orderly close unless the last step is ``Step/reset``.
    public init(steps: [Step]) throws {
        let fd = try Self.bindLoopback()
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = TestServerError(operation: "getsockname", code: errno)
            close(fd)
            throw error
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listenFD = fd
        self.steps = steps
        let thread = Thread { [state, steps] in
            Thread.current.name = "RawServer.acc"
            Self.acceptLoop(fd: fd, steps: steps, state: state)
        }
        thread.start()
    }

    deinit {
        stop()
    }

    /// `"http://127.0.0.1:<port>"`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Connections accepted so far.
    public var connectionCount: Int { state.lock.withLock { state.accepted } }

    /// Request heads read so far, as received (bytes up to and including the blank line).
    public var requestHeads: [Data] { state.lock.withLock { state.heads } }

    /// Stops accepting and cuts every pause short. Idempotent.
    public func stop() {
        let first = state.lock.withLock { () -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        // shutdown wakes the blocked accept(); the accept thread closes the descriptor.
        if first { _ = shutdown(listenFD, Int32(SHUT_RDWR)) }
    }

    /// A response head with these raw bytes as one header line: lets a test send bytes that are not
    /// UTF-8 (a `String` header could not hold them).
    public static func head(status: String = "HTTP/1.1 200 OK", rawHeader: [UInt8]? = nil, body: [UInt8] = []) -> [UInt8] {
        var bytes = Array("\(status)\r\n".utf8)
        if let rawHeader { bytes += rawHeader + Array("\r\n".utf8) }
        bytes += Array("Content-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
        return bytes + body
    }

    // MARK: Serving

    private static func acceptLoop(fd: Int32, steps: [Step], state: RawServerState) {
        while true {
            let connection = accept(fd, nil, nil)
            if connection < 0 {
                if errno == EINTR && !state.isStopped { continue }
                break
            }
            let go = state.lock.withLock { () -> Bool in
                guard !state.stopped else { return false }
                state.accepted += 1
                return true
            }
            guard go else {
                close(connection)
                break
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let thread = Thread {
                Thread.current.name = "RawServer.conn"
                serve(connection, steps: steps, state: state)
            }
            thread.start()
        }
        close(fd)
    }

    private static func serve(_ fd: Int32, steps: [Step], state: RawServerState) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sendTimeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        guard let head = readHead(fd) else {
            close(fd)
            return
        }
        state.lock.withLock { state.heads.append(head) }
        var resets = false
        for step in steps {
            switch step {
            case .send(let bytes):
                guard write(bytes, to: fd) else {
                    close(fd)
                    return
                }
            case .pause(let seconds):
                let end = ContinuousClock.now + .milliseconds(Int(max(0, seconds) * 1000))
                while ContinuousClock.now < end && !state.isStopped { usleep(5000) }
            case .reset:
                resets = true
            }
        }
        if resets {
            var option = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        } else {
            // An orderly close after the client has read: shut the write side and drain briefly, so
            // unread request bytes cannot turn the close into a reset.
            _ = shutdown(fd, Int32(SHUT_WR))
            var drainTimeout = timeval(tv_sec: 0, tv_usec: 200_000)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &drainTimeout, socklen_t(MemoryLayout<timeval>.size))
            var sink = [UInt8](repeating: 0, count: 4096)
            while sink.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
        }
        close(fd)
    }

    private static func readHead(_ fd: Int32) -> Data? {
        var head = Data()
        var byte: UInt8 = 0
        let end: [UInt8] = [13, 10, 13, 10]
        while head.count < 1024 * 1024 {
            let received = recv(fd, &byte, 1, 0)
            if received < 0 && errno == EINTR { continue }
            guard received == 1 else { return nil }
            head.append(byte)
            if head.count >= 4 && Array(head.suffix(4)) == end { return head }
        }
        return nil
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset, flags) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    private static func bindLoopback(listening: Bool = true) throws -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestServerError(operation: "socket", code: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listening || listen(fd, 64) == 0 else {
            let error = TestServerError(operation: bound == 0 ? "listen" : "bind", code: errno)
            close(fd)
            throw error
        }
        return fd
    }

    /// A port on 127.0.0.1 that nothing listens on, so a connection to it is refused. The socket stays
    /// bound (never listening) for the rest of the process: a port closed again could be taken by a
    /// server of a suite running in parallel, and the "refused" connection would then be answered.
    public static func closedPort() throws -> Int {
        let fd = try bindLoopback(listening: false)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// The mutable part of a ``RawServer``, shared with its threads under one lock.
///
/// `@unchecked Sendable` because `lock` guards every `var`: each read and write is inside
/// `lock.withLock`.
private final class RawServerState: @unchecked Sendable {
    let lock = NSLock()
    var accepted = 0
    var heads: [Data] = []
    var stopped = false

    var isStopped: Bool { lock.withLock { stopped } }
}
