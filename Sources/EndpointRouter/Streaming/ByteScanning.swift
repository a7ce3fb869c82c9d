/// Byte-level helpers shared by the streaming parsers, which split lines on bytes so that a UTF-8
/// character cut between two chunks is decoded only once its line is complete.
enum ByteScanning {
    /// U+000A LINE FEED.
    static let lineFeed: UInt8 = 0x0A
    /// U+000D CARRIAGE RETURN.
    static let carriageReturn: UInt8 = 0x0D

    /// The offset of the first LF or CR in `base[from..<end]`, or nil when there is none.
    ///
    /// Eight bytes are tested at a time with the "has a zero byte" bit trick, so runs of text without
    /// line ends cost about one comparison per word instead of two per byte.
    @inline(__always)
    static func firstLineBreak(in base: UnsafeRawPointer, from start: Int, to end: Int) -> Int? {
        var index = start
        while index &+ 8 <= end {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasZeroByte(word ^ 0x0A0A_0A0A_0A0A_0A0A) || hasZeroByte(word ^ 0x0D0D_0D0D_0D0D_0D0D) {
                break
            }
            index &+= 8
        }
        while index < end {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte == lineFeed || byte == carriageReturn { return index }
            index &+= 1
        }
        return nil
    }

    /// The offset of the first LF in `base[from..<end]`, or nil when there is none.
    @inline(__always)
    static func firstLineFeed(in base: UnsafeRawPointer, from start: Int, to end: Int) -> Int? {
        var index = start
        while index &+ 8 <= end {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasZeroByte(word ^ 0x0A0A_0A0A_0A0A_0A0A) { break }
            index &+= 8
        }
        while index < end {
            if base.load(fromByteOffset: index, as: UInt8.self) == lineFeed { return index }
            index &+= 1
        }
        return nil
    }

    /// Whether any of the eight bytes of `word` is zero; exact as a yes/no answer, whatever the byte order.
    @inline(__always)
    private static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
    }
}

/// Skips one UTF-8 byte order mark (EF BB BF) at the start of a stream, also when it arrives split
/// across chunks: the bytes that might begin one are held back until the stream shows whether it is.
struct ByteOrderMarkSkipper: Sendable {
    /// The three bytes of U+FEFF in UTF-8.
    static let bytes: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// How many bytes of the mark have been seen so far; nil once the start of the stream is behind.
    private var matched: Int? = 0

    /// The bytes held back so far that might still turn out to be a mark (at most two).
    var heldBack: ArraySlice<UInt8> { Self.bytes.prefix(matched ?? 0) }

    /// Looks at the next chunk while the start of the stream is undecided (past it, returns 0 at
    /// once). Bytes held back earlier that turn out not to be a mark are appended to `pending`, which
    /// the caller parses before the rest of `bytes`.
    ///
    /// - Returns: how many leading bytes of `bytes` the caller must not parse (mark bytes, or bytes
    ///   held back as a possible mark).
    mutating func skip(in bytes: UnsafeRawBufferPointer, releasingInto pending: inout [UInt8]) -> Int {
        guard var count = matched else { return 0 }
        var index = 0
        while index < bytes.count {
            guard bytes[index] == Self.bytes[count] else {
                matched = nil
                pending.append(contentsOf: Self.bytes.prefix(count))
                return index
            }
            count += 1
            index += 1
            if count == Self.bytes.count {
                matched = nil
                return index
            }
        }
        matched = count
        return index
    }

    /// Starts over for a new stream, where a mark is allowed again.
    mutating func reset() { matched = 0 }
}
