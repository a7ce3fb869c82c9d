import Foundation

/// 32-bit FNV-1a: tiny, stable across platforms and runs (unlike `Hasher`), and needs no CryptoKit.
/// Not collision-resistant against an adversary, which file names for test recordings do not need.
struct FNV1a {
    private(set) var value: UInt32 = 0x811C_9DC5

    mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt32(byte)
            value = value &* 0x0100_0193
        }
    }

    /// Length-prefixed, so `("ab", "c")` and `("a", "bc")` hash differently.
    mutating func combine(field: String) {
        combine("\(field.utf8.count):".utf8)
        combine(field.utf8)
    }

    /// Length-prefixed bytes, like ``combine(field:)``.
    mutating func combine(bytesField bytes: Data) {
        combine("\(bytes.count):".utf8)
        combine(bytes)
    }

    /// A file's contents, read in pieces so that a large upload is never held in memory whole. A file
    /// that cannot be read adds nothing: the library refuses to send such a request anyway.
    mutating func combine(fileAt file: URL) {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return }
        defer { try? handle.close() }
        while let piece = try? handle.read(upToCount: 64 * 1024), !piece.isEmpty {
            combine(piece)
        }
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
