import Foundation

/// A response body the server generates piece by piece while sending, so tests can serve huge, endless or
/// slowly dripping bodies without holding them in memory.
///
/// The bytes follow ``ScriptedResponse/patternByte(at:)``, so a client can check every byte it received.
///
/// Framing, decided when the response is sent:
/// - a `Content-Length` in the script's headers is sent as given and the body is written raw; if it differs
///   from ``total`` the server closes the connection afterwards (this scripts short or overlong bodies);
/// - a `Transfer-Encoding` in the script's headers is taken to mean chunked, and the body is chunk-framed;
/// - otherwise ``announceLength`` with a ``total`` adds `Content-Length: total`;
/// - otherwise an HTTP/1.0 request gets a raw body delimited by closing the connection, because chunked
///   coding does not exist in HTTP/1.0;
/// - otherwise `Transfer-Encoding: chunked` is added, ending with the zero-size chunk once ``total`` is sent.
///
/// With `ScriptedResponse.Behavior.closeDelimited` no framing header is added, the body is written raw and the
/// connection closed afterwards.
public struct StreamedBody: Sendable, Equatable {
    /// Bytes per write and, for chunked framing, per chunk; values below 1 are treated as 1.
    public var chunk: Int
    /// The body length; `nil` streams until the client goes away or the server stops.
    public var total: Int64?
    /// Seconds to pause between chunks, for slow-drip tests; `stop()` or the client closing cuts it short.
    public var interval: TimeInterval
    /// Whether to announce ``total`` in a `Content-Length` header instead of using chunked framing.
    public var announceLength: Bool
    /// When set, the body is this Server-Sent Events stream instead of the byte pattern, and ``chunk``,
    /// ``total``, ``interval`` and ``announceLength`` are ignored (framing is still decided as above).
    /// Set by ``ScriptedResponse/events(_:resumingFrom:status:headers:closeDelimited:)``.
    public var events: GeneratedEvents?

    /// Describes a generated body; see ``ScriptedResponse/stream(status:headers:chunk:total:interval:announceLength:)``.
    public init(chunk: Int = 64 * 1024, total: Int64? = nil, interval: TimeInterval = 0, announceLength: Bool = false) {
        self.chunk = chunk
        self.total = total
        self.interval = interval
        self.announceLength = announceLength
    }
}

extension ScriptedResponse {
    /// A response whose body is generated while it is sent (never held in memory): `chunk`-sized pieces of
    /// the ``patternByte(at:)`` sequence until `total` bytes are out, or without end when `total` is `nil`,
    /// pausing `interval` seconds between pieces. Framing rules are described on ``StreamedBody``.
    /// The writer gives up as soon as the client goes away or the server stops.
    public static func stream(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        chunk: Int = 64 * 1024,
        total: Int64? = nil,
        interval: TimeInterval = 0,
        announceLength: Bool = false
    ) -> ScriptedResponse {
        var response = ScriptedResponse(status: status, headers: headers)
        response.streamedBody = StreamedBody(chunk: chunk, total: total, interval: interval, announceLength: announceLength)
        return response
    }

    /// An empty-bodied response whose head (status line through the final blank line) is padded with
    /// `X-Pad-<n>: aaaa…` fields to about `bytes` bytes, for testing a client's limit on response header size.
    /// Lines are at most `lineLength` bytes (CRLF included) so that only the total size is under test.
    /// The head is exact unless the server has to add `Connection: close`; it cannot be smaller than the
    /// unpadded head.
    public static func withHeaderBlock(bytes: Int, status: Int = 200, lineLength: Int = 1024) -> ScriptedResponse {
        let unpadded = ScriptedResponse(status: status).wireBytes(method: "GET", announceClose: false).count
        var remaining = bytes - unpadded
        var lengths: [Int] = []
        while remaining > 0 {
            // "X-Pad-<n>: " plus CRLF, and at least one byte of value.
            let overhead = "X-Pad-\(lengths.count + 1): ".utf8.count + 2
            if remaining < overhead + 1 {
                // Too little left for another line: lengthen the previous one instead.
                guard !lengths.isEmpty else { break }
                lengths[lengths.count - 1] += remaining
                break
            }
            let line = min(remaining, max(lineLength, overhead + 1))
            lengths.append(line)
            remaining -= line
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(lengths.count)
        for (offset, length) in lengths.enumerated() {
            let name = "X-Pad-\(offset + 1)"
            let valueLength = length - name.utf8.count - 4
            headers.append((name: name, value: String(repeating: "a", count: valueLength)))
        }
        return ScriptedResponse(status: status, headers: headers)
    }

    // MARK: The body pattern

    /// Byte `offset` of every streamed body: `UInt8(truncatingIfNeeded: offset &* 31 &+ 7)`.
    /// The sequence repeats every 256 bytes but is not constant, so dropped, duplicated or reordered
    /// pieces show up as mismatches.
    public static func patternByte(at offset: Int64) -> UInt8 {
        UInt8(truncatingIfNeeded: offset &* 31 &+ 7)
    }

    /// Fills `buffer` with the pattern bytes that start at body offset `offset`.
    public static func fillPattern(_ buffer: UnsafeMutableRawBufferPointer, startingAt offset: Int64) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let seed = min(buffer.count, 256)
        for index in 0..<seed {
            base.storeBytes(of: patternByte(at: offset &+ Int64(index)), toByteOffset: index, as: UInt8.self)
        }
        // The pattern has period 256, so the rest is copies of the first 256 bytes; doubling keeps the
        // per-byte work out of unoptimised test builds.
        var filled = seed
        while filled < buffer.count {
            let count = min(filled, buffer.count - filled)
            (base + filled).copyMemory(from: base, byteCount: count)
            filled += count
        }
    }

    /// `count` pattern bytes starting at body offset `offset`, e.g. to compare with a received range.
    public static func patternData(offset: Int64 = 0, count: Int) -> Data {
        var data = Data(count: max(0, count))
        data.withUnsafeMutableBytes { fillPattern($0, startingAt: offset) }
        return data
    }

    /// The index within `bytes` of the first byte that differs from the pattern (with `bytes[0]` being body
    /// offset `offset`), or `nil` when all of them match.
    public static func firstPatternMismatch(in bytes: Data, startingAt offset: Int64 = 0) -> Int? {
        bytes.withUnsafeBytes { received -> Int? in
            guard let receivedBase = received.baseAddress else { return nil }
            let blockSize = 64 * 1024
            let expected = UnsafeMutableRawBufferPointer.allocate(byteCount: min(blockSize, max(1, received.count)), alignment: 1)
            defer { expected.deallocate() }
            guard let expectedBase = expected.baseAddress else { return nil }
            var position = 0
            while position < received.count {
                let count = min(expected.count, received.count - position)
                let block = UnsafeMutableRawBufferPointer(start: expectedBase, count: count)
                fillPattern(block, startingAt: offset &+ Int64(position))
                // memcmp first: comparing byte by byte is slow in unoptimised builds and rarely needed.
                if memcmp(receivedBase + position, expectedBase, count) != 0 {
                    for index in 0..<count where received[position + index] != block[index] {
                        return position + index
                    }
                }
                position += count
            }
            return nil
        }
    }

    // MARK: Sending

    /// How a streamed body goes on the wire for one request.
    struct StreamPlan {
        /// The complete response head.
        var head: [UInt8]
        /// `false` for HEAD requests and statuses without a body.
        var writesBody: Bool
        /// Whether the body is written in chunked coding (otherwise raw).
        var chunked: Bool
        /// Whether the connection must close after the body, because the body is close-delimited, its length
        /// does not match the announced one, or either side asked for it.
        var closeAfter: Bool
    }

    /// The framing decisions documented on ``StreamedBody``, for a request with `method` and `version`.
    func streamPlan(_ spec: StreamedBody, method: String, version: String, requestWantsClose: Bool) -> StreamPlan {
        let writesBody = bodyAllowed && method != "HEAD"
        var framing: String?
        var chunked = false
        var closeAfter = requestWantsClose || closesConnection
        if behavior == .closeDelimited {
            closeAfter = true
        } else if let declared = headers.first(where: { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }) {
            if writesBody && (spec.total == nil || Int64(declared.value.trimmingCharacters(in: .whitespaces)) != spec.total) {
                closeAfter = true
            }
        } else if hasHeader("Transfer-Encoding") {
            chunked = true
        } else if !bodyAllowed {
            // 1xx, 204 and 304 carry no framing header at all.
        } else if spec.announceLength, let total = spec.total {
            framing = "Content-Length: \(total)"
        } else if version == "HTTP/1.0" {
            closeAfter = true
        } else {
            framing = "Transfer-Encoding: chunked"
            chunked = true
        }
        return StreamPlan(
            head: headBytes(framing: framing, announceClose: closeAfter),
            writesBody: writesBody,
            chunked: chunked,
            closeAfter: closeAfter
        )
    }
}
