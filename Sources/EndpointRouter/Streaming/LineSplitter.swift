// PLACEHOLDER (replaced by the sse-parser branch)
struct LineSplitter: Sendable {
    var pending: [UInt8] = []
    let maxLineSize: Int?
    init(maxLineSize: Int?) { self.maxLineSize = maxLineSize }
    mutating func split(_ bytes: UnsafeRawBufferPointer, _ line: (UnsafeRawBufferPointer) throws(HTTPClientError) -> Void) throws(HTTPClientError) {
        for byte in bytes {
            if byte == 10 {
                if pending.last == 13 { pending.removeLast() }
                let l = pending; pending.removeAll(keepingCapacity: true)
                try l.withBytes { (b: UnsafeRawBufferPointer) throws(HTTPClientError) in try line(b) }
            } else {
                pending.append(byte)
                if let m = maxLineSize, pending.count > m { throw .responseTooLarge(limit: m) }
            }
        }
    }
    mutating func finish() -> [UInt8]? { defer { pending = [] }; return pending.isEmpty ? nil : pending }
}
