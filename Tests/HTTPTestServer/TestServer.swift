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
    public convenience init(handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse) throws {
        try self.init(bodyStorageLimit: .max, handler: handler)
    }

    /// Like ``init(handler:)``, but request bodies longer than `bodyStorageLimit` bytes are streamed
    /// through, counted and hashed instead of kept, so uploads of hundreds of MiB do not inflate the test
    /// process. Such requests have an empty ``RecordedRequest/body`` and ``RecordedRequest/bodyWasDiscarded``
    /// set; ``RecordedRequest/bodyLength`` and ``RecordedRequest/bodySHA256Hex`` describe what arrived.
    ///
    /// With `keepsRequests` false, ``requests`` stays empty: a long load test would otherwise hold every
    /// request it made, and its memory figure would measure the server's log.
    public init(
        bodyStorageLimit: Int, keepsRequests: Bool = true, handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse
    ) throws {
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
        state = ServerState(
            listenFD: listenFD, bodyStorageLimit: max(0, bodyStorageLimit), keepsRequests: keepsRequests, handler: handler)
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

    /// Every connection accepted so far, in accept order (a snapshot); `connections[i].index == i + 1`.
    public var connections: [ConnectionRecord] {
        state.withLock { $0.connections }
    }

    /// Blocks until connection `index` (1-based, as in ``RecordedRequest/connectionIndex``) has ended, waiting
    /// for it to be accepted first if need be; returns when the server noticed the end, or `nil` on timeout.
    /// Blocks the calling thread; from async code `await` the async overload instead.
    public func waitForConnectionEnd(index: Int, timeout: TimeInterval) -> ContinuousClock.Instant? {
        state.waitForConnectionEnd(index: index, timeout: timeout)
    }

    /// The async counterpart of ``waitForConnectionEnd(index:timeout:)``: polls every 5 ms with `Task.sleep`
    /// so it never blocks a cooperative thread. Returns `nil` on timeout or when the task is cancelled.
    public func waitForConnectionEnd(index: Int, timeout: TimeInterval) async -> ContinuousClock.Instant? {
        let clock = ContinuousClock()
        let deadline = clock.now + boundedDuration(timeout)
        while true {
            if let ended = state.withLock({ $0.connections.indices.contains(index - 1) ? $0.connections[index - 1].ended : nil }) {
                return ended
            }
            if clock.now >= deadline || Task.isCancelled { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Blocks until at least `count` connections have been accepted or `timeout` passes; returns whether
    /// they were. Useful before asserting on ``connections`` while a client is still mid-transfer.
    @discardableResult
    public func waitForConnections(count: Int, timeout: TimeInterval = 5) -> Bool {
        state.waitForConnections(count: count, timeout: timeout)
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
        var connections: [ConnectionRecord] = []
    }

    private let condition = NSCondition()
    private var fields = Fields()
    private let listenFD: Int32
    private let bodyStorageLimit: Int
    private let keepsRequests: Bool
    private let handler: @Sendable (RecordedRequest) -> ScriptedResponse

    init(
        listenFD: Int32, bodyStorageLimit: Int, keepsRequests: Bool, handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse
    ) {
        self.keepsRequests = keepsRequests
        self.listenFD = listenFD
        self.bodyStorageLimit = bodyStorageLimit
        self.handler = handler
    }

    var isStopped: Bool {
        withLock { $0.stopped }
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

    func waitForConnections(count: Int, timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while fields.accepted < count {
            if !condition.wait(until: deadline) { break }
        }
        return fields.accepted >= count
    }

    func waitForConnectionEnd(index: Int, timeout: TimeInterval) -> ContinuousClock.Instant? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if fields.connections.indices.contains(index - 1), let ended = fields.connections[index - 1].ended {
                return ended
            }
            if !condition.wait(until: deadline) { return nil }
        }
    }

    /// Records the first end seen for connection `index`; later calls keep that first instant and reason.
    /// Stopping takes precedence in the reason, because a stop looks like a peer close to the socket calls.
    func recordEnd(_ index: Int, _ reason: ConnectionRecord.EndReason) {
        let now = ContinuousClock.now
        condition.lock()
        defer { condition.unlock() }
        guard fields.connections.indices.contains(index - 1), fields.connections[index - 1].ended == nil else { return }
        fields.connections[index - 1].ended = now
        fields.connections[index - 1].endReason = fields.stopped ? .serverStopped : reason
        condition.broadcast()
    }

    func addBodyBytesSent(_ index: Int, _ count: Int) {
        withLock { fields in
            guard fields.connections.indices.contains(index - 1) else { return }
            fields.connections[index - 1].bodyBytesSent += Int64(count)
        }
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
            let acceptedAt = ContinuousClock.now
            let index: Int? = withLock { fields in
                guard !fields.stopped else { return nil }
                fields.accepted += 1
                fields.openConnections.insert(fd)
                fields.connections.append(ConnectionRecord(index: fields.accepted, accepted: acceptedAt))
                return fields.accepted
            }
            guard let index else {
                close(fd)
                break accepting
            }
            condition.broadcast()
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
        let connection = Connection(fd: fd, index: connectionIndex, state: self)
        defer {
            // A no-op when a read, write or wait already recorded how the connection ended.
            recordEnd(connectionIndex, .closedByServer)
            // Leaving the set before close() keeps stop() from shutting down a reused descriptor number.
            withLock { _ = $0.openConnections.remove(fd) }
            close(fd)
        }
        let reader = SocketReader(fd: fd)
        while !isStopped {
            let headBytes: [UInt8]
            switch reader.readHead(limit: maxHeadSize) {
            case .head(let bytes): headBytes = bytes
            case .closed: return recordEnd(connectionIndex, .peerClosed)
            case .tooLarge: return reject(connection, status: 431)
            case .malformed: return reject(connection, status: 400)
            }
            guard let head = RequestHead.parse(headBytes), let framing = head.framing else {
                return reject(connection, status: 400)
            }
            if head.expectsContinue && framing != .none && framing != .length(0) {
                guard connection.transmit(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            let body: ReceivedBody
            switch framing {
            case .none:
                body = ReceivedBody(data: Data())
            case .length(let length) where length <= bodyStorageLimit:
                guard let bytes = reader.readExactly(length) else { return recordEnd(connectionIndex, .peerClosed) }
                body = ReceivedBody(data: Data(bytes))
            case .length(let length):
                // Known to exceed the limit, so nothing is kept from the first byte on.
                var streamed = ReceivedBody(limit: 0)
                guard reader.stream(Int64(length), into: { streamed.consume($0) }) else {
                    return recordEnd(connectionIndex, .peerClosed)
                }
                body = streamed
            case .chunked:
                guard let decoded = reader.readChunkedBody(storageLimit: bodyStorageLimit) else {
                    return reject(connection, status: 400)
                }
                body = decoded
            }

            let request = RecordedRequest(head: head, headBytes: headBytes, body: body, connectionIndex: connectionIndex)
            // Recording before the handler runs lets tests see requests whose responses hang or never come.
            if keepsRequests { withLock { $0.recorded.append(request) } }
            condition.broadcast()

            let response = handler(request)
            if response.delay > 0 {
                guard connection.pause(response.delay) else { return }
            }
            switch response.behavior {
            case .hang:
                // Returns early only if the client hangs up, so that its close is recorded promptly.
                _ = connection.pause(nil)
                return
            case .closeWithoutResponse:
                return
            case .resetWithoutResponse:
                var option = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
                return
            case .closeDelimited:
                if let spec = response.streamedBody {
                    let plan = response.streamPlan(spec, method: head.method, version: head.version, requestWantsClose: true)
                    _ = connection.writeStream(spec, plan: plan)
                } else {
                    _ = connection.transmitResponse(response, method: head.method, announceClose: false)
                }
                return
            case .normal:
                if let spec = response.streamedBody {
                    let plan = response.streamPlan(
                        spec, method: head.method, version: head.version,
                        requestWantsClose: head.wantsClose)
                    guard connection.writeStream(spec, plan: plan), !plan.closeAfter else { return }
                } else {
                    let closeAfter = head.wantsClose || response.closesConnection
                    guard connection.transmitResponse(response, method: head.method, announceClose: closeAfter),
                        !closeAfter
                    else { return }
                }
            }
        }
    }

    /// Sends an error and drains the rest of the input briefly: closing with unread data makes the kernel
    /// send a reset, which can destroy the error response before the client reads it.
    private func reject(_ connection: Connection, status: Int) {
        guard connection.transmit(ScriptedResponse.serverError(status)) else { return }
        let fd = connection.fd
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

// MARK: - One connection

/// Writing and waiting on one connected socket, noticing promptly when the client goes away.
/// Owned by a single connection thread, hence not `Sendable`.
private final class Connection {
    let fd: Int32
    let index: Int
    private let state: ServerState

    init(fd: Int32, index: Int, state: ServerState) {
        self.fd = fd
        self.index = index
        self.state = state
    }

    /// Sends a buffered response and counts its body bytes; `false` if the client is gone or the server stopped.
    func transmitResponse(_ response: ScriptedResponse, method: String, announceClose: Bool) -> Bool {
        guard transmit(response.wireBytes(method: method, announceClose: announceClose)) else { return false }
        if response.bodyAllowed && method != "HEAD" && !response.body.isEmpty {
            state.addBodyBytesSent(index, response.body.count)
        }
        return true
    }

    /// Writes all of `bytes`; `false` if the client is gone or the server stopped (the end is recorded).
    func transmit(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { transmit($0) }
    }

    /// Writes all of `buffer`. Sends time out after `sendTimeout` (SO_SNDTIMEO), which is what lets a
    /// stalled write notice `stop()` or a vanished client instead of blocking forever; a client that is
    /// merely slow to read is waited for.
    func transmit(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        #if canImport(Glibc)
            // MSG_NOSIGNAL turns SIGPIPE into an EPIPE error.
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < buffer.count {
            let sent = send(fd, base + offset, buffer.count - offset, flags)
            if sent > 0 {
                offset += sent
                continue
            }
            let error = errno
            if sent < 0 && error == EINTR { continue }
            if sent < 0 && (error == EAGAIN || error == EWOULDBLOCK) {
                if state.isStopped {
                    state.recordEnd(index, .serverStopped)
                    return false
                }
                if peerHasHungUp() {
                    state.recordEnd(index, .sendFailed)
                    return false
                }
                continue
            }
            state.recordEnd(index, .sendFailed)
            return false
        }
        return true
    }

    /// Waits `seconds` (`nil`: until stopped or the client leaves); `false` if the server stopped or the
    /// client hung up meanwhile (the end is recorded). Watching the socket during the wait is what makes a
    /// client's close visible promptly during delays, hangs and slow drips, when no write would reveal it.
    func pause(_ seconds: TimeInterval?) -> Bool {
        let clock = ContinuousClock()
        let deadline = seconds.map { clock.now + boundedDuration($0) }
        while true {
            if state.isStopped {
                state.recordEnd(index, .serverStopped)
                return false
            }
            var sliceMilliseconds: Int32 = 100
            if let deadline {
                let remaining = clock.now.duration(to: deadline)
                if remaining <= .zero { return true }
                // Rounded up so that the last slice does not turn into a busy loop of zero-timeout polls.
                let milliseconds = (remaining + .microseconds(999)) / .milliseconds(1)
                sliceMilliseconds = Int32(min(100, max(1, milliseconds)))
            }
            if waitForHangUp(milliseconds: sliceMilliseconds) {
                state.recordEnd(index, .peerClosed)
                return false
            }
        }
    }

    /// Writes a generated body as described by `plan`; `true` once it is complete (never for an endless one).
    func writeStream(_ spec: StreamedBody, plan: ScriptedResponse.StreamPlan) -> Bool {
        guard transmit(plan.head) else { return false }
        guard plan.writesBody else { return true }
        // A generated event stream formats its own bytes (GeneratedEvents.swift); only the socket is ours.
        if let events = spec.events {
            return events.write(
                chunked: plan.chunked, transmit: { transmit($0) }, pause: { pause($0) },
                countBodyBytes: { state.addBodyBytesSent(index, $0) })
        }
        let chunk = Int64(max(1, spec.chunk))
        let total = spec.total.map { max(0, $0) }
        // Very large chunks are written in pieces so memory stays bounded whatever the script asks for.
        let pieceCapacity = Int(min(chunk, 256 * 1024))
        // Room for a chunk-size line before the payload and its CRLF after it, so one send carries all three.
        let prefixRoom = 24
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: prefixRoom + pieceCapacity + 2, alignment: 8)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return false }

        var offset: Int64 = 0
        while total.map({ offset < $0 }) ?? true {
            if offset > 0 && spec.interval > 0 {
                guard pause(spec.interval) else { return false }
            }
            let size = total.map { min(chunk, $0 - offset) } ?? chunk
            var written: Int64 = 0
            while written < size {
                let count = Int(min(Int64(pieceCapacity), size - written))
                ScriptedResponse.fillPattern(
                    UnsafeMutableRawBufferPointer(start: base + prefixRoom, count: count),
                    startingAt: offset + written)
                var start = prefixRoom
                var end = prefixRoom + count
                if plan.chunked && written == 0 {
                    let line = Array((String(size, radix: 16) + "\r\n").utf8)
                    start -= line.count
                    line.withUnsafeBytes { UnsafeMutableRawBufferPointer(start: base + start, count: line.count).copyMemory(from: $0) }
                }
                if plan.chunked && written + Int64(count) == size {
                    base.storeBytes(of: 0x0D, toByteOffset: end, as: UInt8.self)
                    base.storeBytes(of: 0x0A, toByteOffset: end + 1, as: UInt8.self)
                    end += 2
                }
                guard transmit(UnsafeRawBufferPointer(start: base + start, count: end - start)) else { return false }
                state.addBodyBytesSent(index, count)
                written += Int64(count)
            }
            offset += size
        }
        if plan.chunked {
            return transmit(Array("0\r\n\r\n".utf8))
        }
        return true
    }

    /// Whether the client has closed its end, checked without blocking while a send is stalled.
    private func peerHasHungUp() -> Bool {
        waitForHangUp(milliseconds: 0)
    }

    /// Waits up to `milliseconds` for the client to hang up. `stop()` shuts the socket down, which also
    /// wakes this wait (the caller then sees the stop first).
    private func waitForHangUp(milliseconds: Int32) -> Bool {
        #if os(Linux)
            // POLLRDHUP reports the peer's FIN even when unread request bytes are queued before it, and leaving
            // POLLIN out keeps such bytes (a pipelined request) from waking the wait over and over.
            let peerHungUp: Int16 = 0x2000  // POLLRDHUP, which Glibc's Swift overlay does not export.
            var entry = pollfd(fd: fd, events: peerHungUp, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            guard ready > 0 else { return false }
            return entry.revents & (peerHungUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
        #else
            // Without POLLRDHUP, end of stream shows as readable with nothing to read; queued bytes hide it,
            // and then the wait is a plain sleep.
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            guard ready > 0 else { return false }
            if entry.revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0 { return true }
            var probe: UInt8 = 0
            let peeked = recv(fd, &probe, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return true }
            if peeked > 0 && milliseconds > 0 { usleep(useconds_t(milliseconds) * 1000) }
            return false
        #endif
    }
}

/// `seconds` as a `Duration`, clamped so that huge, infinite or NaN values cannot trap.
func boundedDuration(_ seconds: TimeInterval) -> Duration {
    guard seconds > 0 else { return .zero }
    return .seconds(min(seconds, 1_000_000_000))
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
    // A bounded send lets a write stalled by a client that stopped reading check for stop() and for the
    // client having gone, instead of blocking the connection thread forever.
    var sendTimeout = timeval(tv_sec: 0, tv_usec: 200_000)
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
    #if canImport(Darwin)
        // Darwin has no MSG_NOSIGNAL; this keeps a write to a closed peer from raising SIGPIPE.
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    #endif
}
