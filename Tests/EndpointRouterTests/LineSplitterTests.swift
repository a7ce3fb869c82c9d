import Foundation
import Testing

@testable import EndpointRouter

/// The line splitter of `lines()` and `jsonLines(of:)`: line ends, the BOM, the size limit, and the
/// same lines however the body is cut into chunks.
@Suite("Line splitter")
struct LineSplitterTests {
    /// A body as chunks, and the lines `split` must report and the last line `finish` must return.
    struct Row: Sendable, CustomTestStringConvertible {
        let rule: String
        let chunks: [[UInt8]]
        let expected: Result<Lines, HTTPClientError>
        let maxLineSize: Int?

        init(_ rule: String, _ chunks: [String], lines: [String], final: String? = nil, maxLineSize: Int? = nil) {
            self.init(rule, bytes: chunks.map { Array($0.utf8) }, .success(Lines(lines, final: final)), maxLineSize: maxLineSize)
        }

        init(_ rule: String, bytes chunks: [[UInt8]], _ expected: Result<Lines, HTTPClientError>, maxLineSize: Int? = nil) {
            self.rule = rule
            self.chunks = chunks
            self.expected = expected
            self.maxLineSize = maxLineSize
        }

        var testDescription: String { rule }
    }

    /// What a body splits into: the terminated lines, then the unterminated last one, as bytes.
    struct Lines: Sendable, Equatable {
        var lines: [[UInt8]]
        var final: [UInt8]?

        init(_ lines: [String], final: String? = nil) {
            self.init(bytes: lines.map { Array($0.utf8) }, final: final.map { Array($0.utf8) })
        }

        init(bytes lines: [[UInt8]], final: [UInt8]?) {
            self.lines = lines
            self.final = final
        }
    }

    static let rows: [Row] = [
        Row("LF ends lines", ["a\nb\n"], lines: ["a", "b"]),
        Row("CRLF ends lines", ["a\r\nb\r\n"], lines: ["a", "b"]),
        Row("a lone CR is kept as data", ["a\rb\n\r"], lines: ["a\rb"], final: "\r"),
        Row("CR CR LF keeps the first CR", ["a\r\r\n"], lines: ["a\r"]),
        Row("CRLF split across chunks", ["a\r", "\nb\n"], lines: ["a", "b"]),
        Row("a CR ending a chunk before other text is data", ["a\r", "b\n"], lines: ["a\rb"]),
        Row("the final line without terminator", ["a\nb"], lines: ["a"], final: "b"),
        Row("a final line split across chunks", ["a\nb", "c"], lines: ["a"], final: "bc"),
        Row("no final line after a terminator", ["a\n"], lines: ["a"]),
        Row("empty lines are reported as empty", ["\n\r\n\n"], lines: ["", "", ""]),
        Row("an empty body has no lines", [], lines: []),
        Row("multi-byte UTF-8 across chunks", ["{\"k\":\"é", "😀\"}\n"], lines: ["{\"k\":\"é😀\"}"]),
        Row("a BOM at the start is skipped", ["\u{FEFF}a\n"], lines: ["a"]),
        Row("a BOM split across chunks is skipped", bytes: [[0xEF], [0xBB], [0xBF, 0x61, 0x0A]], .success(Lines(["a"]))),
        Row("a BOM elsewhere is kept", ["a\n\u{FEFF}b\n"], lines: ["a", "\u{FEFF}b"]),
        Row("only one BOM is skipped", ["\u{FEFF}\u{FEFF}a\n"], lines: ["\u{FEFF}a"]),
        Row("bytes that only begin a BOM are text", bytes: [[0xEF, 0xBB], [0x0A]], .success(Lines(bytes: [[0xEF, 0xBB]], final: nil))),
        Row("a body that is only a BOM's start is its last line", bytes: [[0xEF, 0xBB]], .success(Lines(bytes: [], final: [0xEF, 0xBB]))),
        Row("a line of maxLineSize bytes is accepted", ["abcd\r\n"], lines: ["abcd"], maxLineSize: 4),
        Row("a CRLF split after maxLineSize bytes is accepted", ["abcd\r", "\n"], lines: ["abcd"], maxLineSize: 4),
        Row("a line over maxLineSize throws", bytes: [Array("abcde\n".utf8)], .failure(.responseTooLarge(limit: 4)), maxLineSize: 4),
        Row("an unended line over maxLineSize throws", bytes: [Array("abcde".utf8)], .failure(.responseTooLarge(limit: 4)), maxLineSize: 4),
        Row(
            "a lone CR counts toward maxLineSize", bytes: [Array("abcd\r".utf8), Array("e\n".utf8)], .failure(.responseTooLarge(limit: 4)),
            maxLineSize: 4),
        Row(
            "a CR ending the body counts toward maxLineSize", bytes: [Array("abcd\r".utf8)], .failure(.responseTooLarge(limit: 4)),
            maxLineSize: 4),
    ]

    /// Each row holds with its chunks as given, in one piece, and one byte at a time.
    @Test(arguments: rows)
    func lineEnds(_ row: Row) {
        let whole = row.chunks.flatMap { $0 }
        for chunks in [row.chunks, [whole], whole.map { [$0] }] {
            var splitter = LineSplitter(maxLineSize: row.maxLineSize)
            #expect(Self.split(&splitter, chunks) == row.expected, "chunk sizes \(chunks.map(\.count))")
        }
    }

    /// Feeds `chunks` and finishes the body, collecting the lines or the error.
    static func split(_ splitter: inout LineSplitter, _ chunks: [[UInt8]]) -> Result<Lines, HTTPClientError> {
        var lines: [[UInt8]] = []
        for chunk in chunks {
            let result = chunk.withUnsafeBytes { bytes in
                Result { () throws(HTTPClientError) in try splitter.split(bytes) { line in lines.append(Array(line)) } }
            }
            if case .failure(let error) = result { return .failure(error) }
        }
        return Result { () throws(HTTPClientError) in Lines(bytes: lines, final: try splitter.finish()) }
    }

    /// A line lying wholly in the chunk is handed over in place; one begun in an earlier chunk is not.
    @Test func linesInsideTheChunkAreNotCopied() throws {
        var splitter = LineSplitter(maxLineSize: nil)
        var starts: [UnsafeRawPointer?] = []
        let chunk = Array("ab\ncd\r\nef".utf8)
        let bases = chunk.withUnsafeBytes { bytes in
            let result = Result { () throws(HTTPClientError) in try splitter.split(bytes) { starts.append($0.baseAddress) } }
            return (bytes.baseAddress, result)
        }
        try bases.1.get()
        #expect(starts.count == 2)
        #expect(starts == [bases.0, bases.0.map { $0 + 3 }])
    }

    /// A line that throws from the callback stops the split with that error.
    @Test func theCallbacksErrorIsThrown() {
        var splitter = LineSplitter(maxLineSize: nil)
        var calls = 0
        let result = Array("a\nb\n".utf8).withUnsafeBytes { bytes in
            Result { () throws(HTTPClientError) in
                try splitter.split(bytes) { _ throws(HTTPClientError) in
                    calls += 1
                    throw .invalidResponse
                }
            }
        }
        #expect(calls == 1)
        #expect(throws: HTTPClientError.invalidResponse) { try result.get() }
    }

    /// The splitter is ready for a new body after `finish`, a BOM allowed again.
    @Test func finishStartsANewBody() throws {
        var splitter = LineSplitter(maxLineSize: nil)
        #expect(Self.split(&splitter, [Array("\u{FEFF}a\nb".utf8)]) == .success(Lines(["a"], final: "b")))
        #expect(Self.split(&splitter, [Array("\u{FEFF}c\n".utf8)]) == .success(Lines(["c"])))
    }

    /// 10 MB without LF: the splitter throws before it holds more than the limit.
    @Test func anEndlessLineThrowsBeforeTheLimitPlusOneChunk() {
        let limit = 1_048_576
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var splitter = LineSplitter(maxLineSize: limit)
        var consumed = 0
        var thrown: HTTPClientError?
        while consumed < 10_000_000, thrown == nil {
            consumed += chunk.count
            let result = chunk.withUnsafeBytes { bytes in Result { () throws(HTTPClientError) in try splitter.split(bytes) { _ in } } }
            if case .failure(let error) = result { thrown = error }
        }
        #expect(thrown == .responseTooLarge(limit: limit))
        #expect(consumed > limit)
        #expect(consumed <= limit + chunk.count)
    }

    /// A body with LF, CRLF, lone CRs, empty lines, multi-byte text and a BOM first, ending without LF.
    static let richBody: [UInt8] = Array(
        "\u{FEFF}{\"a\":\"é\"}\r\n{\"b\":\"😀\"}\n\r\n\nline\rwith CR\r\r\n中文 ü\n\n\r{\"tail\":1}".utf8)

    /// Offsets the random splits cut at on purpose: inside the BOM, between CR and LF, inside a character.
    static let trickyOffsets: [Int] = {
        var offsets: [Int] = [1, 2]
        for index in 1..<richBody.count {
            let splitsCRLF = richBody[index - 1] == 0x0D && richBody[index] == 0x0A
            if splitsCRLF || richBody[index] & 0xC0 == 0x80 { offsets.append(index) }
        }
        return offsets
    }()

    /// However the body is cut into chunks, the lines are those of reading it whole.
    @Test func randomSplitsGiveTheSameLines() throws {
        var whole = LineSplitter(maxLineSize: 64)
        let expected = try Self.split(&whole, [Self.richBody]).get()
        #expect(expected == Lines(["{\"a\":\"é\"}", "{\"b\":\"😀\"}", "", "", "line\rwith CR\r", "中文 ü", ""], final: "\r{\"tail\":1}"))
        var random = StreamSplitMix64(seed: 0x11E5_2026)
        for iteration in 0..<ServerSentEventParserTests.propertyCount {
            let chunks = StreamSplitMix64.randomChunks(of: Self.richBody, tricky: Self.trickyOffsets, using: &random)
            var splitter = LineSplitter(maxLineSize: 64)
            let lines = Self.split(&splitter, chunks)
            guard lines == .success(expected) else {
                Issue.record("iteration \(iteration): chunk sizes \(chunks.map(\.count)) gave \(lines)")
                return
            }
        }
    }
}
