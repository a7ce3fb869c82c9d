import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams a download's body into a temporary file next to its destination, reporting progress.
///
/// The file is created only once the head shows an acceptable status; any other response (an error,
/// a redirect hop) keeps up to ``errorBodyLimit`` bytes in memory for the error value, so a 404
/// leaves no file. The temporary file lives in the destination's folder so that moving it into place
/// is an atomic `rename`; whoever ends the call either moves it or ``close()``s the sink, which
/// deletes it.
final class FileBodySink: ResponseBodySink {
    /// Bytes of a non-acceptable response's body kept for ``HTTPClientError/unacceptableStatusCode(_:)``.
    static let errorBodyLimit = 1024 * 1024

    /// Bytes gathered before they go to the file in one `write`. URLSession on Linux hands over at
    /// most 16 KiB a piece, and a 100 MB download in 16 KiB writes spent about twice the kernel time
    /// of 256 KiB writes (`dd` to this machine's ext4: 52 vs 29 ms of CPU per 100 MB); the pieces
    /// arrive on URLSession's one delegate queue, which has no back-pressure, so every microsecond
    /// spent there is memory held by the pieces queued behind.
    static let writeSize = 256 * 1024

    private enum Mode {
        case undecided
        case file(descriptor: Int32, url: URL)
        case memory(MemoryBodySink)
        case finished
        case closed
    }

    private struct State {
        var mode = Mode.undecided
        var completed: Int64 = 0
        var expected: Int64?
        var failure: HTTPClientError?
        /// Body bytes received but not yet written (less than ``FileBodySink/writeSize``).
        var pending: [UInt8] = []
    }

    private let directory: URL
    private let isAcceptable: @Sendable (Int) -> Bool
    private let progress: ProgressReporter?
    /// The method of the request whose response this sink takes: a HEAD's response has no body,
    /// so progress must not announce the size its `Content-Length` describes.
    private let method: RequestMethod
    private let state = Locked(State())

    /// A sink for the response to a `method` request (a GET's unless told: only HEAD differs).
    init(
        directory: URL, isAcceptable: @escaping @Sendable (Int) -> Bool, progress: ProgressReporter?,
        answering method: RequestMethod = .get
    ) {
        self.directory = directory
        self.isAcceptable = isAcceptable
        self.progress = progress
        self.method = method
    }

    func receive(_ head: ResponseHead) throws(HTTPClientError) {
        let report = try state.withLock { state throws(HTTPClientError) -> TransferProgress? in
            try Self.checkOpen(state)
            guard case .undecided = state.mode else { return nil }
            guard isAcceptable(head.statusCode) else {
                state.mode = .memory(MemoryBodySink(limit: Self.errorBodyLimit, overflow: .truncate))
                return nil
            }
            state.mode = try openFile()
            state.expected = head.expectedBodyLength(answering: method)
            return TransferProgress(completedBytes: 0, expectedBytes: state.expected)
        }
        if let report { progress?.report(report) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        let report = try state.withLock { state throws(HTTPClientError) -> TransferProgress? in
            if case .undecided = state.mode { state.mode = try openFile() }
            switch state.mode {
            case .memory(let sink):
                try sink.write(bytes)
                return nil
            case .file(let descriptor, let url):
                do throws(HTTPClientError) {
                    try Self.gather(bytes, into: &state.pending, to: descriptor, url: url)
                } catch {
                    state.failure = error
                    throw error
                }
                state.completed += Int64(bytes.count)
                return TransferProgress(completedBytes: state.completed, expectedBytes: state.expected)
            case .undecided, .finished, .closed:
                try Self.checkOpen(state)
                throw .cancelled
            }
        }
        if let report { progress?.report(report) }
    }

    /// The response for `head`: with the file for an acceptable status, or the kept error body.
    func finish(_ head: ResponseHead) throws(HTTPClientError) -> IncomingResponse {
        let (response, report) = try state.withLock { state throws(HTTPClientError) -> (IncomingResponse, TransferProgress?) in
            if let failure = state.failure { throw failure }
            switch state.mode {
            case .memory(let sink):
                state.mode = .finished
                return (IncomingResponse(head: head, body: try sink.finish()), nil)
            case .file(let descriptor, let url):
                do throws(HTTPClientError) {
                    try Self.flush(&state.pending, to: descriptor, url: url)
                } catch {
                    state.failure = error
                    throw error
                }
                closeDescriptor(descriptor)
                state.mode = .finished
                guard isAcceptable(head.statusCode) else {
                    // The transport never gave the sink its head: keep what an error body needs.
                    let body = (try? FileHandle(forReadingFrom: url).readData(ofLength: Self.errorBodyLimit)) ?? Data()
                    unlink(url.path)
                    return (IncomingResponse(head: head, body: body), nil)
                }
                let total = TransferProgress(completedBytes: state.completed, expectedBytes: state.completed)
                return (IncomingResponse(head: head, bodyFile: url), total)
            case .undecided:
                state.mode = .finished
                guard isAcceptable(head.statusCode) else { return (IncomingResponse(head: head), nil) }
                // An acceptable response with no body: an empty file.
                guard case .file(let descriptor, let url) = try openFile() else { return (IncomingResponse(head: head), nil) }
                closeDescriptor(descriptor)
                return (IncomingResponse(head: head, bodyFile: url), TransferProgress(completedBytes: 0, expectedBytes: 0))
            case .finished, .closed:
                throw .cancelled
            }
        }
        if let report { progress?.report(report) }
        return response
    }

    /// Ends the sink: closes and deletes its file unless `keeping` names it (already moved away).
    func close(keeping kept: URL? = nil) {
        state.withLock { state in
            switch state.mode {
            case .file(let descriptor, let url):
                closeDescriptor(descriptor)
                if url != kept { unlink(url.path) }
            case .memory(let sink):
                sink.close()
            case .undecided, .finished, .closed:
                break
            }
            state.mode = .closed
            state.pending = []
        }
    }

    private func openFile() throws(HTTPClientError) -> Mode {
        let url = directory.appendingPathComponent(".endpointrouter-\(UUID().uuidString).download")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw .transport(.cannotCreateFile, "cannot create a file in \(directory.path) for the download: \(reason)", url: url)
        }
        return .file(descriptor: descriptor, url: url)
    }

    /// Adds `bytes` to `pending`, writing to the file whenever ``writeSize`` bytes are gathered.
    private static func gather(
        _ bytes: UnsafeRawBufferPointer, into pending: inout [UInt8], to descriptor: Int32, url: URL
    ) throws(HTTPClientError) {
        if pending.count + bytes.count < writeSize {
            if pending.capacity < writeSize { pending.reserveCapacity(writeSize) }
            pending.append(contentsOf: bytes)
            return
        }
        try flush(&pending, to: descriptor, url: url)
        if bytes.count >= writeSize {
            try writeAll(bytes, to: descriptor, url: url)
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    /// Writes what `pending` holds and empties it, keeping its storage for the next pieces.
    private static func flush(_ pending: inout [UInt8], to descriptor: Int32, url: URL) throws(HTTPClientError) {
        guard !pending.isEmpty else { return }
        try pending.withBytes { buffer throws(HTTPClientError) in try writeAll(buffer, to: descriptor, url: url) }
        pending.removeAll(keepingCapacity: true)
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, url: URL) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let written = writeBytes(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                let reason = String(cString: strerror(errno))
                throw .transport(.cannotWriteToFile, "cannot write the download to \(url.path): \(reason)", url: url)
            }
        }
    }

    private static func checkOpen(_ state: State) throws(HTTPClientError) {
        if let failure = state.failure { throw failure }
        switch state.mode {
        case .finished, .closed: throw .cancelled
        case .undecided, .file, .memory: break
        }
    }
}

// Inside the sink, `close` and `write` name its own methods; these reach the C functions.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
private func writeBytes(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, buffer, count) }
