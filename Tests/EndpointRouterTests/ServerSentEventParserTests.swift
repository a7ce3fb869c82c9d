import Foundation
import Testing

@testable import EndpointRouter

/// The event stream parser against the WHATWG HTML "Server-sent events" sections 9.2.5 (parsing) and
/// 9.2.6 (interpreting), one table row per rule, and against itself under every way of cutting a stream.
@Suite("Server-sent event parser")
struct ServerSentEventParserTests {
    /// One rule of the standard: a stream, and everything the parser must end with after reading it whole.
    struct Row: Sendable, CustomTestStringConvertible {
        let rule: String
        let input: [UInt8]
        let expected: Result<[ServerSentEvent], HTTPClientError>
        let lastEventID: String
        let reconnectionTime: Int?
        let maxEventSize: Int?

        init(
            _ rule: String,
            _ input: String,
            _ events: [ServerSentEvent],
            lastEventID: String = "",
            reconnectionTime: Int? = nil
        ) {
            self.init(rule, bytes: Array(input.utf8), .success(events), lastEventID: lastEventID, reconnectionTime: reconnectionTime)
        }

        init(
            _ rule: String,
            bytes: [UInt8],
            _ expected: Result<[ServerSentEvent], HTTPClientError>,
            lastEventID: String = "",
            reconnectionTime: Int? = nil,
            maxEventSize: Int? = 1_048_576
        ) {
            self.rule = rule
            self.input = bytes
            self.expected = expected
            self.lastEventID = lastEventID
            self.reconnectionTime = reconnectionTime
            self.maxEventSize = maxEventSize
        }

        var testDescription: String { rule }
    }

    /// Shorthand for the rows' expected events.
    static func event(_ data: String, _ event: String? = nil, id: String? = nil, retry: Int? = nil) -> ServerSentEvent {
        ServerSentEvent(event: event, data: data, id: id, retry: retry)
    }

    static let rows: [Row] = [
        // 9.2.5: decoding and line ends.
        Row("a BOM at the start of the stream is skipped", "\u{FEFF}data: a\n\n", [event("a")]),
        Row("only one BOM is skipped: a second one is part of the field name", "\u{FEFF}\u{FEFF}data: a\n\n", []),
        Row("a BOM mid-stream is not stripped: it makes an unknown field", "data: a\n\n\u{FEFF}data: b\n\n", [event("a")]),
        Row("bytes that only begin a BOM are text", bytes: [0xEF, 0xBB] + Array("data: a\n\n".utf8), .success([])),
        Row(
            "invalid UTF-8 becomes U+FFFD", bytes: Array("data: a".utf8) + [0xFF, 0xC3] + Array("b\n\n".utf8),
            .success([event("a\u{FFFD}\u{FFFD}b")])),
        Row("multi-byte UTF-8 is kept", "event: café\ndata: é😀\n\n", [event("é😀", "café")]),
        Row("LF ends lines", "data: a\ndata: b\n\n", [event("a\nb")]),
        Row("CRLF ends lines", "data: a\r\ndata: b\r\n\r\n", [event("a\nb")]),
        Row("CR ends lines", "data: a\rdata: b\r\r", [event("a\nb")]),
        Row("CRLF, CR and LF mix", "data: a\r\ndata: b\rdata: c\n\r\n", [event("a\nb\nc")]),
        Row("LF then CR is two line ends", "data: a\n\rdata: b\n\n", [event("a"), event("b")]),
        // 9.2.6: the four kinds of line.
        Row("a blank line dispatches", "data: a\n\ndata: b\n\n", [event("a"), event("b")]),
        Row("a line starting with a colon is a comment", ": keep-alive\ndata: a\n:data: b\n\n", [event("a")]),
        Row("a block of comments dispatches nothing", ":one\n:two\n\n", []),
        Row("a field without colon has the empty value", "data\n\n", [event("")]),
        Row("the field name ends at the first colon", "data: a:b: c\n\n", [event("a:b: c")]),
        Row("no space after the colon is fine", "data:a\n\n", [event("a")]),
        Row("one leading space is removed, not two", "data:  a\n\n", [event(" a")]),
        Row("a trailing space is kept", "data: a \n\n", [event("a ")]),
        // The fields.
        Row("data lines are joined with LF", "data: a\ndata: b\ndata: c\n\n", [event("a\nb\nc")]),
        Row("only one trailing LF is removed", "data: a\ndata\n\n", [event("a\n")]),
        Row("an empty data buffer dispatches nothing", "event: x\nid: 1\n\n", [], lastEventID: "1"),
        Row("the event type is reset by a block without data", "event: x\n\ndata: a\n\n", [event("a")]),
        Row("the event type is reset after dispatch", "event: x\ndata: a\n\ndata: b\n\n", [event("a", "x"), event("b")]),
        Row("the last event type field wins", "event: x\nevent: y\ndata: a\n\n", [event("a", "y")]),
        Row("an empty event type means none", "event\ndata: a\n\n", [event("a")]),
        Row(
            "the id persists across events", "id: 1\ndata: a\n\ndata: b\n\n", [event("a", id: "1"), event("b", id: "1")], lastEventID: "1"),
        Row(
            "an id containing NUL is ignored", "id: 1\ndata: a\n\nid: 2\u{0}\ndata: b\n\n", [event("a", id: "1"), event("b", id: "1")],
            lastEventID: "1"),
        Row("an empty id resets the last event ID", "id: 1\ndata: a\n\nid\ndata: b\n\n", [event("a", id: "1"), event("b")]),
        Row("an id in a block without data still sets lastEventID", "id: 7\n\n", [], lastEventID: "7"),
        Row("an id is in force only from its block's dispatch", "id: 1\ndata: a\n\nid: 2\n", [event("a", id: "1")], lastEventID: "1"),
        Row("retry with digits sets the reconnection time", "retry: 1500\ndata: a\n\n", [event("a", retry: 1500)], reconnectionTime: 1500),
        Row(
            "retry is reported with its own block only", "retry: 5\ndata: a\n\ndata: b\n\n", [event("a", retry: 5), event("b")],
            reconnectionTime: 5),
        Row("retry in a block without data still sets the time", "retry: 5\n\n", [], reconnectionTime: 5),
        Row("retry with a letter is ignored", "retry: 10a\ndata: a\n\n", [event("a")]),
        Row("retry with a sign is ignored", "retry: -1\ndata: a\n\n", [event("a")]),
        Row("retry without digits is ignored", "retry\ndata: a\n\n", [event("a")]),
        Row("retry too large for Int is ignored", "retry: 99999999999999999999\ndata: a\n\n", [event("a")]),
        Row("a field name with a leading space is another field", " retry: 5\n data: a\n\n", []),
        Row("an unknown field is ignored", "foo: bar\ndata: a\n\n", [event("a")]),
        Row("field names are case-sensitive", "Data: a\nEVENT: x\n\n", []),
        Row("an incomplete last event is dropped", "data: a\n\ndata: b\n", [event("a")]),
        Row("a last line without end is dropped", "data: a\n\ndata: b", [event("a")]),
        // The standard's own examples (9.2.4 and 9.2.6).
        Row("spec: three data lines make one event", "data: YHOO\ndata: +2\ndata: 10\n\n", [event("YHOO\n+2\n10")]),
        Row(
            "spec: comment, id, id reset, leading space",
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
            [event("first event", id: "1"), event("second event"), event(" third event")]
        ),
        Row("spec: empty data, a newline, a dropped last block", "data\n\ndata\ndata\n\ndata:", [event(""), event("\n")]),
        Row("spec: the space after the colon is optional", "data:test\n\ndata: test\n\n", [event("test"), event("test")]),
        Row(
            "spec: event types",
            "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n",
            [event("73857293", "add"), event("2153", "remove"), event("113411", "add")]
        ),
        // maxEventSize.
        Row(
            "an event of exactly maxEventSize bytes is accepted", bytes: Array("data: abcd\n\n".utf8), .success([event("abcd")]),
            maxEventSize: 10),
        Row(
            "a line over maxEventSize throws", bytes: Array("data: abcde\n\n".utf8), .failure(.responseTooLarge(limit: 10)),
            maxEventSize: 10),
        Row(
            "data lines adding up over maxEventSize throw",
            bytes: Array("data: abc\ndata: abc\n\n".utf8),
            .failure(.responseTooLarge(limit: 10)),
            maxEventSize: 10
        ),
        Row(
            "a line without end over maxEventSize throws", bytes: Array(repeating: UInt8(ascii: "a"), count: 11),
            .failure(.responseTooLarge(limit: 10)), maxEventSize: 10),
        Row(
            "the limit is per event", bytes: Array("data: abc\n\ndata: abc\n\n".utf8), .success([event("abc"), event("abc")]),
            maxEventSize: 10),
        Row(
            "nil means no limit", bytes: Array(("data: " + String(repeating: "x", count: 100_000) + "\n\n").utf8),
            .success([event(String(repeating: "x", count: 100_000))]), maxEventSize: nil),
    ]

    /// Each rule holds with the stream in one piece and with it fed one byte at a time (which splits
    /// every CRLF, every BOM and every multi-byte character).
    @Test(arguments: rows)
    func conformance(_ row: Row) {
        for chunks in [[row.input], row.input.map { [$0] }] {
            var parser = ServerSentEventParser(maxEventSize: row.maxEventSize)
            let outcome = Self.parse(&parser, chunks)
            #expect(outcome == row.expected, "\(chunks.count) chunks")
            if case .success = row.expected {
                #expect(parser.lastEventID == row.lastEventID, "\(chunks.count) chunks")
                #expect(parser.reconnectionTime == row.reconnectionTime, "\(chunks.count) chunks")
            }
        }
    }

    /// Parses `chunks` in order and ends the stream, collecting the events or the error.
    static func parse(_ parser: inout ServerSentEventParser, _ chunks: [[UInt8]]) -> Result<[ServerSentEvent], HTTPClientError> {
        var events: [ServerSentEvent] = []
        for chunk in chunks {
            let result = chunk.withUnsafeBytes { bytes in Result { () throws(HTTPClientError) in try parser.parse(bytes) } }
            switch result {
            case .success(let more): events += more
            case .failure(let error): return .failure(error)
            }
        }
        parser.finishStream()
        return .success(events)
    }

    // MARK: Streams and reconnects

    /// The parser reuses the last event type's text when the same bytes come again; a type that
    /// differs, is a prefix or extension of it, or is empty must still read as itself.
    @Test func repeatedAndChangingEventTypesReadAsThemselves() throws {
        var parser = ServerSentEventParser()
        let text =
            "event: a\ndata: 1\n\nevent: a\ndata: 2\n\nevent: ab\ndata: 3\n\nevent: a\ndata: 4\n\n"
            + "event:\ndata: 5\n\nevent: é\ndata: 6\n\nevent: é\ndata: 7\n\ndata: 8\n\n"
        let events = try parser.parse(Data(text.utf8))
        #expect(events.map(\.event) == ["a", "a", "ab", "a", nil, "é", "é", nil])
        #expect(events.map(\.data) == ["1", "2", "3", "4", "5", "6", "7", "8"])
    }

    @Test func finishStreamKeepsTheIDAndTimeForTheNextStream() throws {
        var parser = ServerSentEventParser()
        let first = try parser.parse(Data("retry: 300\nid: 5\ndata: a\n\nid: 6\ndata: cut off".utf8))
        #expect(first == [ServerSentEvent(data: "a", id: "5", retry: 300)])
        parser.finishStream()
        #expect(parser.lastEventID == "5")
        #expect(parser.reconnectionTime == 300)
        // A new stream: a BOM is skipped again, and an event without id carries the ID resumed from.
        let second = try parser.parse(Data("\u{FEFF}data: b\n\n".utf8))
        #expect(second == [ServerSentEvent(data: "b", id: "5")])
    }

    @Test func aCREndingOneChunkAndAnLFStartingTheNextAreOneLineEnd() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Data("data: a\r".utf8)) == [])
        #expect(try parser.parse(Data("\ndata: b\r".utf8)) == [])
        // Had the LF counted as a line end of its own, "a" would have been dispatched alone.
        #expect(try parser.parse(Data("\r".utf8)) == [ServerSentEvent(data: "a\nb")])
    }

    @Test func theDataOverloadMatchesTheBufferOne() throws {
        let text = "event: e\ndata: x\nid: 1\nretry: 9\n\n"
        var fromData = ServerSentEventParser()
        var fromBuffer = ServerSentEventParser()
        let buffered = Array(text.utf8).withUnsafeBytes { bytes in Result { () throws(HTTPClientError) in try fromBuffer.parse(bytes) } }
        #expect(try fromData.parse(Data(text.utf8)) == buffered.get())
        #expect(try buffered.get() == [ServerSentEvent(event: "e", data: "x", id: "1", retry: 9)])
    }

    @Test func afterTheLimitTheStreamKeepsThrowingUntilFinished() throws {
        var parser = ServerSentEventParser(maxEventSize: 8)
        #expect(throws: HTTPClientError.responseTooLarge(limit: 8)) { try parser.parse(Data("data: 123456789\n\n".utf8)) }
        #expect(throws: HTTPClientError.responseTooLarge(limit: 8)) { try parser.parse(Data("data: 1\n\n".utf8)) }
        parser.finishStream()
        #expect(try parser.parse(Data("data: 1\n\n".utf8)) == [ServerSentEvent(data: "1")])
    }

    // MARK: Memory

    /// 10 MB of one endless line: the parser throws before it holds more than the limit.
    @Test func anEndlessLineThrowsBeforeTheLimitPlusOneChunk() {
        let limit = 1_048_576
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var parser = ServerSentEventParser(maxEventSize: limit)
        let consumed = Self.bytesConsumedUntilThrow(&parser, chunk: chunk, total: 10_000_000)
        #expect(consumed > limit)
        #expect(consumed <= limit + chunk.count)
    }

    /// 10 MB of data lines and no blank line: the event's data counts toward the limit too.
    @Test func endlessDataLinesThrowBeforeTheLimitPlusOneChunk() {
        let limit = 1_048_576
        let line = Array("data: \(String(repeating: "y", count: 120))\n".utf8)
        let chunk = Array(repeatElement(line, count: 512).joined())
        var parser = ServerSentEventParser(maxEventSize: limit)
        let consumed = Self.bytesConsumedUntilThrow(&parser, chunk: chunk, total: 10_000_000)
        #expect(consumed > limit)
        #expect(consumed <= limit + chunk.count)
    }

    /// Feeds `chunk` repeatedly up to `total` bytes; the bytes fed when the parser threw (Int.max if it never did).
    static func bytesConsumedUntilThrow(_ parser: inout ServerSentEventParser, chunk: [UInt8], total: Int) -> Int {
        var consumed = 0
        while consumed < total {
            consumed += chunk.count
            let result = chunk.withUnsafeBytes { bytes in Result { () throws(HTTPClientError) in try parser.parse(bytes) } }
            if case .failure(let error) = result {
                #expect(error == .responseTooLarge(limit: 1_048_576))
                return consumed
            }
        }
        return Int.max
    }

    // MARK: Splits

    /// A stream with every kind of line end and a few kinds of field, a BOM first, multi-byte text.
    static let richStream: [UInt8] = Array(
        ("\u{FEFF}: comment\r\nretry: 2500\nevent: café\r\ndata: é😀 one\rdata:two\n\n"
            + "id: 42\r\ndata\r\n\r: ping\nevent: x\nid: 4\u{0}2\ndata: 😀😀\r\rid\r\ndata: ü\n\nretry: 7x\r\n"
            + "data:  spaced \r\n:\r\ndata: 中文\n\nid: ø\n\n:end\r\ndata: tail").utf8)

    /// Offsets the random splits cut at on purpose: inside the BOM, between CR and LF, inside a character.
    static let trickyOffsets: [Int] = {
        let bytes = richStream
        var offsets: [Int] = [1, 2]
        for index in 1..<bytes.count {
            let splitsCRLF = bytes[index - 1] == 0x0D && bytes[index] == 0x0A
            let splitsCharacter = bytes[index] & 0xC0 == 0x80
            if splitsCRLF || splitsCharacter { offsets.append(index) }
        }
        return offsets
    }()

    /// The number of random splits per property: `PROPERTY_COUNT`, 10,000 unless set.
    static let propertyCount = Int(ProcessInfo.processInfo.environment["PROPERTY_COUNT"] ?? "") ?? 10_000

    /// However the stream is cut into chunks, the events and the final state are those of reading it whole.
    @Test func randomSplitsGiveTheSameEvents() throws {
        var whole = ServerSentEventParser()
        let expected = try Self.parse(&whole, [Self.richStream]).get()
        #expect(
            expected == [
                ServerSentEvent(event: "café", data: "é😀 one\ntwo", retry: 2500),
                ServerSentEvent(data: "", id: "42"),
                ServerSentEvent(event: "x", data: "😀😀", id: "42"),
                ServerSentEvent(data: "ü"),
                ServerSentEvent(data: " spaced \n中文"),
            ])
        #expect(whole.lastEventID == "ø")
        #expect(whole.reconnectionTime == 2500)
        var random = StreamSplitMix64(seed: 0x5E5E_2026)
        for iteration in 0..<Self.propertyCount {
            let chunks = StreamSplitMix64.randomChunks(of: Self.richStream, tricky: Self.trickyOffsets, using: &random)
            var parser = ServerSentEventParser()
            let events = Self.parse(&parser, chunks)
            guard events == .success(expected), parser.lastEventID == whole.lastEventID,
                parser.reconnectionTime == whole.reconnectionTime
            else {
                Issue.record("iteration \(iteration): chunk sizes \(chunks.map(\.count)) gave \(events), lastEventID \(parser.lastEventID)")
                return
            }
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood): a tiny seeded generator, so a failing split can be replayed.
struct StreamSplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// Cuts `bytes` into 1 to 16 chunks (empty chunks included), with about half of the cuts taken
    /// from `tricky` when the input has such places.
    static func randomChunks(of bytes: [UInt8], tricky: [Int], using random: inout StreamSplitMix64) -> [[UInt8]] {
        let chunkCount = Int.random(in: 1...16, using: &random)
        var cuts: [Int] = []
        for _ in 1..<chunkCount {
            if !tricky.isEmpty, Bool.random(using: &random) {
                cuts.append(tricky[Int.random(in: 0..<tricky.count, using: &random)])
            } else {
                cuts.append(Int.random(in: 0...bytes.count, using: &random))
            }
        }
        cuts.sort()
        var chunks: [[UInt8]] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            chunks.append(Array(bytes[start..<cut]))
            start = cut
        }
        return chunks
    }
}
