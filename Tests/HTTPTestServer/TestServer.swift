import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thrown when the listening socket cannot be set up.
public struct TestServerError: Error, CustomStringConvertible, Sendable {
    /// The system call that failed, e.g. `"bind"`.
    public let operation: String
    /// The `errno` it left behind.
    public let code: Int32

    /// A readable summary including the system's error text.
    public var description: String {
        "TestServer: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// An in-process HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for tests that script responses
/// and assert on the exact requests a client sent. Each instance is independent; there is no global state.
///
/// Every connection gets its own thread and `handler` may run on several of them at once, so it must be
/// thread-safe. A handler that captures the server keeps it alive; call `stop()` explicitly in that case.
public final class TestServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let state: ServerState

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting; `handler` answers every request.
    public init(handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse) throws {
        let listenFD = try openListener()
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &length) }
        }
        guard named == 0 else {
            let error = TestServerError(operation: "getsockname", code: errno)
            close(listenFD)
            throw error
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        state = ServerState(listenFD: listenFD, handler: handler)
        let acceptThread = Thread { [state] in
            // Named from inside: on Linux a name set before start() never reaches the OS thread. Kept under
            // 16 bytes because longer names are rejected by pthread_setname_np.
            Thread.current.name = "TestServer.acc"
            state.acceptLoop()
        }
        acceptThread.start()
    }

    /// A server that answers every request with `response`.
    public convenience init(response: ScriptedResponse) throws {
        try self.init(handler: { _ in response })
    }

    deinit {
        stop()
    }

    /// `"http://127.0.0.1:<port>"`, without a trailing slash.
    public var baseURL: String {
        "http://127.0.0.1:\(port)"
    }

    /// Every complete request received so far, in arrival order (a snapshot).
    public var requests: [RecordedRequest] {
        state.withLock { $0.recorded }
    }

    /// The number of connections accepted so far.
    public var connectionCount: Int {
        state.withLock { $0.accepted }
    }

    /// Blocks until at least `count` requests have been recorded or `timeout` passes; returns whether they were.
    /// Useful with `.hang`, where the client call never returns to signal that the request arrived.
    @discardableResult
    public func waitForRequests(count: Int, timeout: TimeInterval = 5) -> Bool {
        state.waitForRequests(count: count, timeout: timeout)
    }

    /// Closes the listener and every open connection and wakes hung or delayed responses. Idempotent.
    /// On return the port refuses new connections.
    public func stop() {
        state.stop()
    }
}

// MARK: - Shared state

/// The largest request head accepted; beyond it the client gets 431 so a runaway client cannot exhaust memory.
private let maxHeadSize = 64 * 1024

/// State shared by the public object, the accept thread and the connection threads.
///
/// It is `@unchecked Sendable` because `NSCondition` provides the synchronisation the compiler cannot see:
/// every mutable field is touched only inside `withLock` or while `condition` is held, and the condition
/// variable is also what wakes `.hang` and `delay` waits when `stop()` runs.
private final class ServerState: @unchecked Sendable {
    /// The fields guarded by `condition`.
    struct Fields {
        var stopped = false
        var acceptLoopDone = false
        var openConnections: Set<Int32> = []
        var recorded: [RecordedRequest] = []
        var accepted = 0
    }

    private let condition = NSCondition()
    private var fields = Fields()
    private let listenFD: Int32
    private let handler: @Sendable (RecordedRequest) -> ScriptedResponse

    init(listenFD: Int32, handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse) {
        self.listenFD = listenFD
        self.handler = handler
    }

    func withLock<T>(_ body: (inout Fields) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&fields)
    }

    /// Shutting sockets down (rather than closing them) under the lock wakes their blocked `accept`/`recv`
    /// while the owning thread still holds the descriptor, so a number reused by another server is never hit.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        if !fields.stopped {
            fields.stopped = true
            if !fields.acceptLoopDone { _ = shutdown(listenFD, Int32(SHUT_RDWR)) }
            for fd in fields.openConnections { _ = shutdown(fd, Int32(SHUT_RDWR)) }
            condition.broadcast()
        }
        // Waiting for the accept thread guarantees the listening descriptor is closed when stop() returns.
        let deadline = Date(timeIntervalSinceNow: 5)
        while !fields.acceptLoopDone {
            if !condition.wait(until: deadline) { break }
        }
    }

    func waitForRequests(count: Int, timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while fields.recorded.count < count {
            if !condition.wait(until: deadline) { break }
        }
        return fields.recorded.count >= count
    }

    /// Sleeps up to `seconds`, or until `stop()`; returns `false` if the server was stopped.
    func sleepUnlessStopped(_ seconds: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !fields.stopped {
            if !condition.wait(until: deadline) { break }
        }
        return !fields.stopped
    }

    func waitUntilStopped() {
        condition.lock()
        defer { condition.unlock() }
        while !fields.stopped { condition.wait() }
    }

    // MARK: Accepting

    func acceptLoop() {
        accepting: while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                let error = errno
                if withLock({ $0.stopped }) { break accepting }
                switch error {
                case EINTR, ECONNABORTED, EPROTO:
                    continue accepting
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory is transient while many tests run; back off instead of dying.
                    if sleepUnlessStopped(0.01) { continue accepting }
                    break accepting
                default:
                    break accepting
                }
            }
            let index: Int? = withLock { fields in
                guard !fields.stopped else { return nil }
                fields.accepted += 1
                fields.openConnections.insert(fd)
                return fields.accepted
            }
            guard let index else {
                close(fd)
                break accepting
            }
            configureConnection(fd)
            let thread = Thread { [self] in
                Thread.current.name = "TestServer.conn"
                serve(fd: fd, connectionIndex: index)
            }
            thread.start()
        }
        withLock { fields in
            close(listenFD)
            fields.acceptLoopDone = true
        }
        condition.broadcast()
    }

    // MARK: Serving one connection

    private func serve(fd: Int32, connectionIndex: Int) {
        defer {
            // Leaving the set before close() keeps stop() from shutting down a reused descriptor number.
            withLock { _ = $0.openConnections.remove(fd) }
            close(fd)
        }
        let reader = SocketReader(fd: fd)
        while !withLock({ $0.stopped }) {
            let headBytes: [UInt8]
            switch reader.readHead(limit: maxHeadSize) {
            case .head(let bytes): headBytes = bytes
            case .closed: return
            case .tooLarge: return reject(fd, status: 431)
            case .malformed: return reject(fd, status: 400)
            }
            guard let head = RequestHead.parse(headBytes), let framing = head.framing else {
                return reject(fd, status: 400)
            }
            if head.expectsContinue && framing != .none && framing != .length(0) {
                guard sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            let body: Data
            switch framing {
            case .none:
                body = Data()
            case .length(let length):
                guard let bytes = reader.readExactly(length) else { return }
                body = Data(bytes)
            case .chunked:
                guard let decoded = reader.readChunkedBody() else { return reject(fd, status: 400) }
                body = decoded
            }

            let request = RecordedRequest(head: head, headBytes: headBytes, body: body, connectionIndex: connectionIndex)
            // Recording before the handler runs lets tests see requests whose responses hang or never come.
            withLock { $0.recorded.append(request) }
            condition.broadcast()

            let response = handler(request)
            if response.delay > 0 {
                guard sleepUnlessStopped(response.delay) else { return }
            }
            switch response.behavior {
            case .hang:
                waitUntilStopped()
                return
            case .closeWithoutResponse:
                return
            case .closeDelimited:
                _ = sendAll(fd, response.wireBytes(method: head.method, announceClose: false))
                return
            case .normal:
                let closeAfter = head.wantsClose || response.closesConnection
                guard sendAll(fd, response.wireBytes(method: head.method, announceClose: closeAfter)),
                      !closeAfter
                else { return }
            }
        }
    }

    /// Sends an error and drains the rest of the input briefly: closing with unread data makes the kernel
    /// send a reset, which can destroy the error response before the client reads it.
    private func reject(_ fd: Int32, status: Int) {
        guard sendAll(fd, ScriptedResponse.serverError(status)) else { return }
        _ = shutdown(fd, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sink = [UInt8](repeating: 0, count: 16 * 1024)
        let deadline = Date(timeIntervalSinceNow: 1)
        while Date() < deadline {
            let received = sink.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received <= 0 && !(received < 0 && errno == EINTR) { break }
        }
    }
}

// MARK: - Socket helpers

private func openListener() throws -> Int32 {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw TestServerError(operation: "socket", code: errno) }
    // Descriptors must not leak into processes that tests spawn.
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    var yes: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))

    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(0).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    // A large backlog absorbs bursts of 100+ parallel connects before the accept thread catches up.
    guard bound == 0, listen(fd, SOMAXCONN) == 0 else {
        let error = TestServerError(operation: bound == 0 ? "listen" : "bind", code: errno)
        close(fd)
        throw error
    }
    return fd
}

private func configureConnection(_ fd: Int32) {
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    var yes: Int32 = 1
    // Without TCP_NODELAY, a 100 Continue followed by the response can stall on Nagle + delayed ACK.
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    #if canImport(Darwin)
    // Darwin has no MSG_NOSIGNAL; this keeps a write to a closed peer from raising SIGPIPE.
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    #endif
}

/// Writes all of `bytes`; `false` if the peer is gone. MSG_NOSIGNAL turns SIGPIPE into an EPIPE error.
private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
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
