import Foundation

/// An incremental SHA-256 (FIPS 180-4), so tests can fingerprint request bodies that are too large to keep
/// in memory. It exists because the package may not take dependencies and CryptoKit is missing on Linux.
public struct SHA256: Sendable {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Input that does not yet fill a 64-byte block; always fewer than 64 bytes between calls.
    private var pending: [UInt8] = []
    private var totalBytes: UInt64 = 0

    /// An empty hasher, ready for ``update(_:)``.
    public init() {
        pending.reserveCapacity(64)
    }

    /// Feeds more input; the hash of several updates equals the hash of their concatenation.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        totalBytes &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            offset = take
            guard pending.count == 64 else { return }
            let block = pending
            block.withUnsafeBytes { compress(blocksAt: $0.baseAddress, count: 1) }
            pending.removeAll(keepingCapacity: true)
        }
        let wholeBlocks = (bytes.count - offset) / 64
        if wholeBlocks > 0 {
            compress(blocksAt: base + offset, count: wholeBlocks)
            offset += wholeBlocks * 64
        }
        if offset < bytes.count {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base + offset, count: bytes.count - offset))
        }
    }

    /// Feeds the bytes of `data`.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything fed so far; the hasher itself is left unchanged and can keep going.
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = totalBytes &* 8
        var tail: [UInt8] = [0x80]
        let padding = (64 + 56 - (pending.count + 1) % 64) % 64
        tail.append(contentsOf: repeatElement(0, count: padding))
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength &>> UInt64(shift)))
        }
        // Going through update() would count the padding into the length, so the blocks are compressed directly.
        let last = copy.pending + tail
        last.withUnsafeBytes { copy.compress(blocksAt: $0.baseAddress, count: last.count / 64) }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in copy.state {
            digest.append(UInt8(truncatingIfNeeded: word &>> 24))
            digest.append(UInt8(truncatingIfNeeded: word &>> 16))
            digest.append(UInt8(truncatingIfNeeded: word &>> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// The digest as 64 lowercase hex digits, the format `sha256sum` prints.
    public var hex: String {
        SHA256Digest.hexString(finalize())
    }

    /// Processes whole 64-byte blocks. Test builds are unoptimised, so the hot loop avoids what costs most
    /// there: array indexing, smart (non-masking) shifts and range iterators. That took hashing 100 MiB from
    /// about 14 s to about 2.5 s in a debug build.
    private mutating func compress(blocksAt start: UnsafeRawPointer?, count: Int) {
        guard let start, count > 0 else { return }
        Self.roundConstants.withUnsafeBufferPointer { constants in
            guard let k = constants.baseAddress else { return }
            state.withUnsafeMutableBufferPointer { stateBuffer in
                guard let h = stateBuffer.baseAddress else { return }
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                    guard let w = schedule.baseAddress else { return }
                    for blockIndex in 0..<count {
                        let block = start + blockIndex * 64
                        var t = 0
                        while t < 16 {
                            w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
                            t &+= 1
                        }
                        while t < 64 {
                            let x = w[t &- 15]
                            let y = w[t &- 2]
                            let s0 = (x &>> 7 | x &<< 25) ^ (x &>> 18 | x &<< 14) ^ (x &>> 3)
                            let s1 = (y &>> 17 | y &<< 15) ^ (y &>> 19 | y &<< 13) ^ (y &>> 10)
                            w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                            t &+= 1
                        }
                        var a = h[0]
                        var b = h[1]
                        var c = h[2]
                        var d = h[3]
                        var e = h[4]
                        var f = h[5]
                        var g = h[6]
                        var hh = h[7]
                        t = 0
                        while t < 64 {
                            let sigma1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
                            let choose = (e & f) ^ (~e & g)
                            let t1 = hh &+ sigma1 &+ choose &+ k[t] &+ w[t]
                            let sigma0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
                            let majority = (a & b) ^ (a & c) ^ (b & c)
                            let t2 = sigma0 &+ majority
                            hh = g
                            g = f
                            f = e
                            e = d &+ t1
                            d = c
                            c = b
                            b = a
                            a = t1 &+ t2
                            t &+= 1
                        }
                        h[0] = h[0] &+ a
                        h[1] = h[1] &+ b
                        h[2] = h[2] &+ c
                        h[3] = h[3] &+ d
                        h[4] = h[4] &+ e
                        h[5] = h[5] &+ f
                        h[6] = h[6] &+ g
                        h[7] = h[7] &+ hh
                    }
                }
            }
        }
    }
}

/// One-shot SHA-256 helpers for bodies that are already in memory.
public enum SHA256Digest {
    /// The SHA-256 of `data` as 64 lowercase hex digits, comparable with `sha256sum` output.
    public static func hex(of data: Data) -> String {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.hex
    }

    /// The SHA-256 of `data` as raw bytes.
    public static func bytes(of data: Data) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    static func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte &>> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
