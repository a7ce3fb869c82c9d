import Foundation

/// Collects a body in memory, up to a limit.
///
/// The limit counts the bytes the transport delivers (decompressed), so a gzip bomb is stopped at the
/// limit like any other large body. Capacity grows by doubling but never past the limit, so the
/// buffer never needs twice the limit.
final class MemoryBodySink: ResponseBodySink, StripeLocked, @unchecked Sendable {
    enum Overflow {
        /// Fail with `.responseTooLarge`: the body is the caller's value and must be whole.
        case fail
        /// Keep the first `limit` bytes and drop the rest: for error bodies, kept only for reading.
        case truncate
    }

    struct State {
        var body = Data()
        var reserved = 0
        var failure: HTTPClientError?
        var closed = false
    }

    private let limit: Int?
    private let overflow: Overflow
    /// The method of the request whose response this sink takes: a HEAD's response has no body,
    /// so its `Content-Length` is not checked against the limit.
    private let method: RequestMethod
    // Safe (`@unchecked Sendable`): only touched under the object's stripe lock (`withLock`).
    var lockedState = State()

    /// A sink for the response to a `method` request (a GET's unless told: only HEAD differs).
    init(limit: Int?, overflow: Overflow = .fail, answering method: RequestMethod = .get) {
        self.limit = limit.map { max(0, $0) }
        self.overflow = overflow
        self.method = method
    }

    func receive(_ head: ResponseHead) throws(HTTPClientError) {
        try withLock { state throws(HTTPClientError) in
            try Self.checkOpen(state)
            guard let length = head.expectedBodyLength(answering: method) else { return }
            if let limit, length > Int64(limit), overflow == .fail {
                state.failure = .responseTooLarge(limit: limit)
                throw .responseTooLarge(limit: limit)
            }
            let capacity = Int(min(length, Int64(limit ?? Int.max), 64 * 1024 * 1024))
            state.body.reserveCapacity(capacity)
            state.reserved = capacity
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        try withLock { state throws(HTTPClientError) in
            try Self.checkOpen(state)
            var accepted = bytes
            if let limit, state.body.count + bytes.count > limit {
                switch overflow {
                case .fail:
                    state.failure = .responseTooLarge(limit: limit)
                    state.body = Data()  // the caller gets an error; free the memory now
                    throw .responseTooLarge(limit: limit)
                case .truncate:
                    accepted = UnsafeRawBufferPointer(rebasing: bytes.prefix(limit - state.body.count))
                }
            }
            let needed = state.body.count + accepted.count
            if needed > state.reserved {
                let grown = min(max(needed, state.reserved * 2, 16 * 1024), limit ?? Int.max)
                state.body.reserveCapacity(grown)
                state.reserved = grown
            }
            state.body.append(contentsOf: accepted)
        }
    }

    /// The body received, or the error a write already threw (in case the transport swallowed it).
    func finish() throws(HTTPClientError) -> Data {
        try withLock { state throws(HTTPClientError) in
            if let failure = state.failure { throw failure }
            state.closed = true
            defer { state.body = Data() }
            return state.body
        }
    }

    /// Refuses further writes and frees the memory: the call has ended.
    func close() {
        withLock { state in
            state.closed = true
            state.body = Data()
        }
    }

    private static func checkOpen(_ state: State) throws(HTTPClientError) {
        if let failure = state.failure { throw failure }
        if state.closed { throw .cancelled }
    }
}
