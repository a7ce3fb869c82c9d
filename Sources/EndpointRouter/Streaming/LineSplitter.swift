/// Splits a response body arriving in pieces into lines, for `lines()` and `jsonLines(of:)`
/// (newline-delimited text and JSON Lines).
///
/// Lines end in LF or CRLF: the CR of a CRLF is removed also when it ended the previous piece. A lone
/// CR, not followed by LF, is kept as part of the line: JSON Lines and NDJSON end lines in LF only, and
/// reading a CR as a line end would cut a line at a CR in its text, which JSON escapes but plain text
/// need not. One UTF-8 byte order mark at the start of the body is skipped.
///
/// <!-- snippet: skip reason="LineSplitter is internal: the example is for the library's own code" -->
/// ```swift
/// var splitter = LineSplitter(maxLineSize: 1_048_576)
/// for try await chunk in body {
///     try chunk.withUnsafeBytes { bytes throws(HTTPClientError) in
///         try splitter.split(bytes) { line throws(HTTPClientError) in lines.append(String(decoding: line, as: UTF8.self)) }
///     }
/// }
/// if let last = try splitter.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
/// ```
///
/// Lines are handed over as bytes, so a UTF-8 character split between pieces is whole when decoded.
/// Memory stays bounded by `maxLineSize`: only the unfinished line is kept between pieces.
struct LineSplitter: Sendable {
    /// The longest line accepted, in bytes, its end excluded; nil for no limit.
    private let maxLineSize: Int?
    /// The start of a line that the pieces seen so far have not ended, possibly with its CR.
    private var pending: [UInt8] = []
    /// Skips the byte order mark at the start of the body.
    private var byteOrderMark = ByteOrderMarkSkipper()

    /// Makes a splitter for one body.
    ///
    /// - Parameter maxLineSize: the most bytes a line may hold, its LF or CRLF excluded; nil for no
    ///   limit. Negative values count as 0.
    init(maxLineSize: Int?) {
        self.maxLineSize = maxLineSize.map { max(0, $0) }
    }

    /// Calls `line` with each completed line's bytes (terminator excluded), in order.
    ///
    /// The bytes are valid only during the call. A line lying wholly in `bytes` is handed over in place,
    /// without a copy; only a line begun in an earlier piece is put together in a buffer.
    ///
    /// - Throws: `.responseTooLarge(limit: maxLineSize)` as soon as a line is known to be longer than
    ///   `maxLineSize`, before its bytes are stored; or what `line` throws. Either way the splitter has
    ///   lost its place in the body and must not be fed again.
    mutating func split(
        _ bytes: UnsafeRawBufferPointer,
        _ line: (UnsafeRawBufferPointer) throws(HTTPClientError) -> Void
    ) throws(HTTPClientError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let end = bytes.count
        var start = byteOrderMark.skip(in: bytes, releasingInto: &pending)
        while start < end {
            guard let lineFeed = ByteScanning.firstLineFeed(in: base, from: start, to: end) else {
                let length = pending.count + (end - start)
                // A CR last in the piece may be the first half of a CRLF, and then not part of the line.
                let endsInCR = base.load(fromByteOffset: end - 1, as: UInt8.self) == ByteScanning.carriageReturn
                try check(length: endsInCR ? length - 1 : length)
                pending.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: end - start))
                return
            }
            if pending.isEmpty {
                var lineEnd = lineFeed
                if lineEnd > start, base.load(fromByteOffset: lineEnd - 1, as: UInt8.self) == ByteScanning.carriageReturn {
                    lineEnd -= 1
                }
                try check(length: lineEnd - start)
                try line(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start))
            } else {
                var lineEnd = lineFeed
                var dropsPendingCR = false
                if lineEnd > start {
                    if base.load(fromByteOffset: lineEnd - 1, as: UInt8.self) == ByteScanning.carriageReturn { lineEnd -= 1 }
                } else {
                    dropsPendingCR = pending.last == ByteScanning.carriageReturn
                }
                try check(length: pending.count + (lineEnd - start) - (dropsPendingCR ? 1 : 0))
                if dropsPendingCR { pending.removeLast() }
                pending.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: lineEnd - start))
                // Emptied whether or not the consumer of the line throws.
                defer { pending.removeAll(keepingCapacity: true) }
                try pending.withBytes { completed throws(HTTPClientError) in try line(completed) }
            }
            start = lineFeed + 1
        }
    }

    /// At the end of the body: the last line when it had no terminator and is not empty (nil otherwise).
    ///
    /// Returned as a new array because it is called once per body; a CR ending the body is kept as
    /// data, like any CR not followed by LF. The splitter is then ready for a new body (a byte order
    /// mark allowed again).
    ///
    /// - Throws: `.responseTooLarge(limit: maxLineSize)` when the body ends in a CR that makes the
    ///   last line one byte too long (`split` let it pass, as it could have begun a CRLF).
    mutating func finish() throws(HTTPClientError) -> [UInt8]? {
        defer { byteOrderMark.reset() }
        // A body that was only the first bytes of a byte order mark: they are its text.
        var last = Array(byteOrderMark.heldBack)
        last.append(contentsOf: pending)
        pending = []
        guard !last.isEmpty else { return nil }
        try check(length: last.count)
        return last
    }

    /// Throws when a line of `length` bytes is over the limit.
    @inline(__always)
    private func check(length: Int) throws(HTTPClientError) {
        if let maxLineSize, length > maxLineSize { throw .responseTooLarge(limit: maxLineSize) }
    }
}
