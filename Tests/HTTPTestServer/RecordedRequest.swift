import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP request exactly as the server received it, captured before the handler runs.
public struct RecordedRequest: Sendable {
    /// The request method as sent on the wire, case preserved (e.g. `"GET"`).
    public let method: String
    /// The raw request-target (e.g. `"/a%20b?x=1"`), left undecoded so tests can check the client's encoding.
    public let target: String
    /// The target up to the first `?`, still percent-encoded.
    public let path: String
    /// The raw text after the first `?`; `nil` when the target has no `?`, `""` when it ends with one.
    public let query: String?
    /// The protocol version from the request line, e.g. `"HTTP/1.1"`.
    public let version: String
    /// Header fields in wire order with names as sent; values have surrounding spaces and tabs trimmed.
    public let headers: [(name: String, value: String)]
    /// The message body, already de-chunked when the request used `Transfer-Encoding: chunked`.
    /// Empty when the body was longer than the server's `bodyStorageLimit` (see ``bodyWasDiscarded``).
    public let body: Data
    /// The body length in bytes (after de-chunking), also known when the body itself was not kept.
    public let bodyLength: Int64
    /// Whether the body exceeded the server's `bodyStorageLimit` and was only counted and hashed, in which
    /// case ``body`` is empty and ``bodyLength`` and ``bodySHA256Hex`` describe what was received.
    public let bodyWasDiscarded: Bool
    /// The digest taken while a discarded body streamed through; kept bodies are hashed on demand instead,
    /// so the common small-body case never pays for hashing.
    private let streamedDigest: String?
    /// The request head as received (request line, header lines and the terminating blank line),
    /// decoded as UTF-8, or as Latin-1 when the bytes are not valid UTF-8.
    public let head: String
    /// The exact bytes of ``head``, for assertions that must not depend on text decoding.
    public let headData: Data
    /// 1-based number of the connection the request arrived on (in accept order), to assert on connection reuse.
    public let connectionIndex: Int

    /// The value of the first header called `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the headers called `name` (compared case-insensitively), in wire order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The body decoded as UTF-8 (invalid bytes become U+FFFD), for readable assertions.
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    /// The SHA-256 of the whole body as 64 lowercase hex digits (as `sha256sum` prints it), available
    /// whether or not the body was kept, so large uploads can be checked byte for byte.
    public var bodySHA256Hex: String {
        streamedDigest ?? SHA256Digest.hex(of: body)
    }

    init(head parsed: RequestHead, headBytes: [UInt8], body: ReceivedBody, connectionIndex: Int) {
        method = parsed.method
        target = parsed.target
        if let mark = parsed.target.firstIndex(of: "?") {
            path = String(parsed.target[..<mark])
            query = String(parsed.target[parsed.target.index(after: mark)...])
        } else {
            path = parsed.target
            query = nil
        }
        version = parsed.version
        headers = parsed.headers
        self.body = body.stored ?? Data()
        bodyLength = body.length
        bodyWasDiscarded = body.stored == nil
        streamedDigest = body.stored == nil ? body.digestHex : nil
        head = decodeText(headBytes)
        headData = Data(headBytes)
        self.connectionIndex = connectionIndex
    }
}

// MARK: - Parsing

private let cr: UInt8 = 0x0D
private let lf: UInt8 = 0x0A

/// Decodes wire text without ever failing, since a test server must record whatever the client sent.
func decodeText<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    String(bytes: bytes, encoding: .utf8) ?? String(bytes: bytes, encoding: .isoLatin1) ?? ""
}

/// RFC 9110 `tchar`: method and header names must consist of these.
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

private func isToken(_ text: Substring) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
}

private func trimOWS(_ text: Substring) -> String {
    String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
}

/// The parsed request line and header fields, before the body is read.
struct RequestHead {
    /// How the request body is delimited on the wire.
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    let method: String
    let target: String
    let version: String
    let headers: [(name: String, value: String)]

    /// Returns `nil` for anything that is not a well-formed HTTP/1.x request head, so the server can answer 400.
    static func parse(_ bytes: [UInt8]) -> RequestHead? {
        // Splitting on LF and dropping a trailing CR accepts both CRLF and the bare LF that RFC 9112 tolerates.
        var lines = bytes.split(separator: lf, omittingEmptySubsequences: false).map { line in
            line.last == cr ? line.dropLast() : line
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let requestLine = lines.first else { return nil }

        let parts = decodeText(requestLine).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty,
            parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0"
        else { return nil }

        var headers: [(name: String, value: String)] = []
        for rawLine in lines.dropFirst() {
            // Obsolete line folding (leading whitespace) is rejected, as RFC 9112 allows, to keep parsing simple.
            guard let first = rawLine.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else { return nil }
            let line = decodeText(rawLine)
            guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else { return nil }
            headers.append((name: String(line[..<colon]), value: trimOWS(line[line.index(after: colon)...])))
        }
        return RequestHead(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers)
    }

    /// Comma-separated tokens of all headers called `name`, lowercased.
    private func tokens(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            .flatMap { $0.value.split(separator: ",") }
            .map { trimOWS($0).lowercased() }
    }

    /// `nil` means the framing is invalid or ambiguous; RFC 9112 requires a 400 then.
    var framing: Framing? {
        let transferCodings = tokens("Transfer-Encoding")
        if !transferCodings.isEmpty {
            // Only a final "chunked" coding tells a server where a request body ends.
            return transferCodings.last == "chunked" ? .chunked : nil
        }
        let lengths = tokens("Content-Length")
        guard let first = lengths.first else { return Framing.none }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty,
            first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let length = Int(first)
        else { return nil }
        return .length(length)
    }

    /// HTTP/1.0 closes by default; we never answer with keep-alive, so any 1.0 request ends its connection.
    var wantsClose: Bool {
        version == "HTTP/1.0" || tokens("Connection").contains("close")
    }

    /// libcurl waits up to a second for "100 Continue" before sending larger bodies; answering speeds tests up.
    var expectsContinue: Bool {
        version == "HTTP/1.1" && tokens("Expect").contains("100-continue")
    }
}

// MARK: - Receiving bodies

/// A request body as received: kept in memory up to a limit, otherwise only counted and hashed.
struct ReceivedBody {
    /// The bytes, or `nil` once the body outgrew the limit.
    var stored: Data?
    /// Bytes received so far.
    var length: Int64 = 0
    /// Only fed once the body is discarded; kept bodies are hashed later, on demand.
    private var hasher = SHA256()
    private let limit: Int

    /// An empty body that is kept while it is at most `limit` bytes long.
    init(limit: Int) {
        self.limit = max(0, limit)
        stored = Data()
    }

    /// A body that was read in one piece.
    init(data: Data) {
        limit = Int.max
        stored = data
        length = Int64(data.count)
    }

    /// Appends received bytes, switching to count-and-hash mode when the body outgrows the limit.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        length += Int64(bytes.count)
        if stored != nil {
            if length <= Int64(limit) {
                // Appending through the optional (not a bound copy) keeps the buffer uniquely referenced.
                stored?.append(contentsOf: bytes)
                return
            }
            // Hash what was kept so far, then drop it for good.
            if let kept = stored { hasher.update(kept) }
            stored = nil
        }
        hasher.update(bytes)
    }

    /// The digest of everything consumed; only meaningful once the body was discarded.
    var digestHex: String {
        hasher.hex
    }
}

// MARK: - Reading from the socket

/// Buffered reads from one connected socket. Owned by a single connection thread, hence not `Sendable`.
final class SocketReader {
    /// Outcome of waiting for a complete request head.
    enum HeadResult {
        case head([UInt8])
        case closed
        case tooLarge
        case malformed
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// Where the search for the end of the head resumes, so a slowly arriving head is not rescanned from the start.
    private var scanned = 0

    init(fd: Int32) {
        self.fd = fd
    }

    /// Reads until a blank line ends the head, without consuming any body bytes.
    func readHead(limit: Int) -> HeadResult {
        scanned = 0
        while true {
            // RFC 9112 asks servers to ignore empty lines before a request line (some clients send CRLF after a body).
            let start = buffer.firstIndex { $0 != cr && $0 != lf } ?? buffer.count
            if start > 0 {
                buffer.removeFirst(start)
                scanned = 0
            }
            // A request line starts with a method token; rejecting anything else at once stops e.g. a TLS
            // ClientHello from waiting for a head terminator that will never come.
            if let first = buffer.first, !isTokenByte(first) { return .malformed }
            if let end = findHeadEnd() {
                guard end <= limit else { return .tooLarge }
                let head = Array(buffer[..<end])
                buffer.removeFirst(end)
                return .head(head)
            }
            if buffer.count >= limit { return .tooLarge }
            guard fill() else { return .closed }
        }
    }

    /// Exactly `count` bytes, or `nil` if the peer closes first.
    func readExactly(_ count: Int) -> [UInt8]? {
        while buffer.count < count {
            guard fill() else { return nil }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Delivers exactly `count` bytes to `consume` in pieces, without accumulating them; `false` if the peer
    /// closes first. Reads never go past `count`, so a pipelined next request stays in the socket.
    func stream(_ count: Int64, into consume: (UnsafeRawBufferPointer) -> Void) -> Bool {
        var remaining = count
        if !buffer.isEmpty && remaining > 0 {
            let take = Int(min(Int64(buffer.count), remaining))
            buffer.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[..<take])) }
            buffer.removeFirst(take)
            remaining -= Int64(take)
        }
        while remaining > 0 {
            let wanted = Int(min(Int64(scratch.count), remaining))
            let received = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, wanted, 0) }
            if received > 0 {
                scratch.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[..<received])) }
                remaining -= Int64(received)
            } else if !(received < 0 && errno == EINTR) {
                return false
            }
        }
        return true
    }

    /// One line without its line ending, or `nil` if the peer closes or the line exceeds `limit`.
    func readLine(limit: Int) -> [UInt8]? {
        var searched = 0
        while true {
            if let index = buffer[searched...].firstIndex(of: lf) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == cr { line.removeLast() }
                return line
            }
            searched = buffer.count
            guard buffer.count <= limit, fill() else { return nil }
        }
    }

    /// The de-chunked body, or `nil` if the chunked encoding is broken or the peer closes mid-body.
    /// The body is kept only while it is at most `storageLimit` bytes long; beyond that it is counted and hashed.
    func readChunkedBody(storageLimit: Int) -> ReceivedBody? {
        var body = ReceivedBody(limit: storageLimit)
        while true {
            guard let line = readLine(limit: 4096) else { return nil }
            let sizeField = line.prefix { $0 != UInt8(ascii: ";") }
                .drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                .reversed().drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.reversed()
            let hexDigits = "0123456789abcdefABCDEF".utf8
            // Int(_:radix:) would also accept a sign, which is not valid in a chunk size.
            guard !sizeField.isEmpty, sizeField.count <= 15, sizeField.allSatisfy(hexDigits.contains),
                let size = Int(decodeText(sizeField), radix: 16)
            else { return nil }
            if size == 0 {
                // Trailer fields are read to keep the connection in sync but are not recorded.
                while true {
                    guard let trailer = readLine(limit: 64 * 1024) else { return nil }
                    if trailer.isEmpty { return body }
                }
            }
            guard stream(Int64(size), into: { body.consume($0) }) else { return nil }
            guard let terminator = readLine(limit: 2), terminator.isEmpty else { return nil }
        }
    }

    /// Accepts both CRLF CRLF and LF LF (and mixes) as the end of the head.
    private func findHeadEnd() -> Int? {
        var index = scanned
        while index < buffer.count {
            if buffer[index] == lf {
                guard index + 1 < buffer.count else { break }
                if buffer[index + 1] == lf { return index + 2 }
                if buffer[index + 1] == cr {
                    guard index + 2 < buffer.count else { break }
                    if buffer[index + 2] == lf { return index + 3 }
                }
            }
            index += 1
        }
        scanned = index
        return nil
    }

    /// Appends whatever the socket has; `false` on end of stream or error (including a shutdown from `stop()`).
    private func fill() -> Bool {
        while true {
            let received = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                buffer.append(contentsOf: scratch[..<received])
                return true
            }
            if received < 0 && errno == EINTR { continue }
            return false
        }
    }
}
