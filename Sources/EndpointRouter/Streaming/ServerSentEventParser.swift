import Foundation

/// Turns the bytes of a `text/event-stream` body into ``ServerSentEvent`` values, exactly as the WHATWG
/// HTML standard parses and interprets an event stream ("Server-sent events", 9.2.5 and 9.2.6).
///
/// Feed the body in whatever pieces it arrives; an event is returned by the call that brings its
/// blank line, whether its lines, a CRLF or a UTF-8 character were split between pieces or not:
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body {
///     for event in try parser.parse(chunk) {
///         print(event.event ?? "message", event.data)
///     }
/// }
/// parser.finishStream()   // drops an event the server never finished
/// // reconnect with `Last-Event-ID: parser.lastEventID` after `parser.reconnectionTime` ms
/// ```
///
/// What the standard specifies, in short: the body is UTF-8 (one leading byte order mark is
/// skipped, invalid bytes become U+FFFD); lines end in CRLF, LF or CR; a blank line dispatches the
/// event; a line starting with `:` is a comment; `field: value` loses one space after the colon; the
/// fields are `event`, `data` (lines joined with LF), `id` (kept for the following events too,
/// ignored when it contains U+0000) and `retry` (ASCII digits only); other fields are ignored, and
/// an event without `data` is not dispatched.
///
/// The parser holds at most one event in memory, bounded by `maxEventSize`. It is a value: copy it
/// and both copies go on independently.
public struct ServerSentEventParser: Sendable {
    /// The largest event accepted, in bytes; nil for no limit.
    private let maxEventSize: Int?
    /// The bytes of the line not yet ended by the chunks seen so far.
    private var pendingLine: [UInt8] = []
    /// The spec's data buffer: each `data` value followed by LF, as bytes, decoded once at dispatch.
    private var dataBuffer: [UInt8] = []
    /// The spec's event type buffer.
    private var eventTypeBuffer = ""
    /// The last event type decoded, and its bytes, to reuse when the next one is the same.
    private var lastEventType = ""
    private var lastEventTypeBytes: [UInt8] = []
    /// The spec's last event ID buffer: not reset by a dispatch.
    private var lastEventIDBuffer = ""
    /// The `retry` value of the block being read, reported with its event.
    private var blockRetry: Int?
    /// Whether the previous chunk ended in CR, so an LF opening the next one completes that CRLF.
    private var previousChunkEndedInCR = false
    /// Skips the byte order mark at the start of each stream.
    private var byteOrderMark = ByteOrderMarkSkipper()
    /// Whether this stream has thrown: what follows a refused event cannot be parsed meaningfully.
    private var hasFailed = false

    /// The last event ID string: the `id` in force at the last dispatch, "" when none.
    ///
    /// Send it as `Last-Event-ID` when reconnecting. It changes at dispatch (a blank line), also for a
    /// block with an `id` but no `data`, and not for an event cut off by the end of the stream.
    public private(set) var lastEventID = ""

    /// The reconnection time in milliseconds from the last valid `retry` field, nil before the first.
    public private(set) var reconnectionTime: Int?

    /// Makes a parser for a new stream.
    ///
    /// - Parameter maxEventSize: the most bytes one event may hold while it is read (its data lines so
    ///   far plus the line being read); nil for no limit. The default, 1 MiB, is far above what APIs
    ///   stream and keeps a server that never sends a line end from filling memory. Negative values
    ///   count as 0.
    public init(maxEventSize: Int? = 1_048_576) {
        self.maxEventSize = maxEventSize.map { max(0, $0) }
    }

    /// Feeds the next piece of the stream; returns the events it completed, in order.
    ///
    /// - Throws: `.responseTooLarge(limit: maxEventSize)` as soon as one event would exceed
    ///   `maxEventSize`, before its bytes are stored. The rest of this stream cannot be parsed after that:
    ///   further calls throw the same error until ``finishStream()``. Events completed earlier in the same
    ///   piece are dropped with it.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) -> [ServerSentEvent] {
        if hasFailed { throw .responseTooLarge(limit: maxEventSize ?? 0) }
        var events: [ServerSentEvent] = []
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return events }
        let end = bytes.count
        var start = byteOrderMark.skip(in: bytes, releasingInto: &pendingLine)
        if previousChunkEndedInCR, start < end {
            previousChunkEndedInCR = false
            if base.load(fromByteOffset: start, as: UInt8.self) == ByteScanning.lineFeed { start += 1 }
        }
        while start < end {
            guard let lineEnd = ByteScanning.firstLineBreak(in: base, from: start, to: end) else {
                try checkSize(lineLength: pendingLine.count + (end - start))
                pendingLine.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: end - start))
                break
            }
            try checkSize(lineLength: pendingLine.count + (lineEnd - start))
            if pendingLine.isEmpty {
                // The whole line is in this chunk: read it in place.
                interpret(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start), into: &events)
            } else {
                pendingLine.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: lineEnd - start))
                // Moved out so that `interpret`, which mutates `self`, does not overlap an access to it.
                var line: [UInt8] = []
                swap(&line, &pendingLine)
                line.withUnsafeBytes { interpret($0, into: &events) }
                line.removeAll(keepingCapacity: true)
                swap(&line, &pendingLine)
            }
            start = lineEnd + 1
            if base.load(fromByteOffset: lineEnd, as: UInt8.self) == ByteScanning.carriageReturn {
                if start == end {
                    previousChunkEndedInCR = true
                } else if base.load(fromByteOffset: start, as: UInt8.self) == ByteScanning.lineFeed {
                    start += 1
                }
            }
        }
        return events
    }

    /// Feeds the next piece of the stream from `Data`; returns the events it completed, in order.
    ///
    /// - Throws: `.responseTooLarge(limit: maxEventSize)`, as `parse(_:)`.
    public mutating func parse(_ data: Data) throws(HTTPClientError) -> [ServerSentEvent] {
        try data.withBytes { bytes throws(HTTPClientError) in try parse(bytes) }
    }

    /// The end of one connection's stream: the incomplete event (no blank line yet) is dropped, as the spec says.
    /// Keeps `lastEventID` and `reconnectionTime` for a reconnect; the next bytes are parsed as a new stream (a BOM allowed again).
    ///
    /// The new stream's last event ID buffer starts from ``lastEventID``, as browsers keep their
    /// event source's ID across reconnects: an event without `id` after a reconnect still carries the
    /// ID the reconnect resumed from. Also clears an error thrown by `parse(_:)`.
    public mutating func finishStream() {
        pendingLine.removeAll(keepingCapacity: true)
        dataBuffer.removeAll(keepingCapacity: true)
        eventTypeBuffer = ""
        lastEventIDBuffer = lastEventID
        blockRetry = nil
        previousChunkEndedInCR = false
        byteOrderMark.reset()
        hasFailed = false
    }

    /// Throws when an event holding `lineLength` more bytes than its data so far would exceed the limit,
    /// and lets go of the event's memory: the stream cannot go on.
    @inline(__always)
    private mutating func checkSize(lineLength: Int) throws(HTTPClientError) {
        guard let maxEventSize, lineLength > maxEventSize - dataBuffer.count else { return }
        hasFailed = true
        pendingLine = []
        dataBuffer = []
        eventTypeBuffer = ""
        blockRetry = nil
        throw .responseTooLarge(limit: maxEventSize)
    }

    /// Interprets one complete line (its end excluded), per 9.2.6; a blank line dispatches into `events`.
    @inline(__always)
    private mutating func interpret(_ line: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        // A comment, the keep-alive of many servers: no decoding at all.
        if first == Self.colon { return }
        // Colon, space and the field names are ASCII and never part of a multi-byte UTF-8 sequence, so
        // splitting on bytes and decoding the parts gives what decoding the whole line first would.
        var fieldEnd = 1
        while fieldEnd < line.count, line[fieldEnd] != Self.colon { fieldEnd += 1 }
        var valueStart = min(fieldEnd + 1, line.count)
        if valueStart < line.count, line[valueStart] == Self.space { valueStart += 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
        switch Field(line, length: fieldEnd) {
        case .data:
            dataBuffer.append(contentsOf: value)
            dataBuffer.append(ByteScanning.lineFeed)
        case .event:
            // Streams repeat a few event types: the last one's text is reused when its bytes match,
            // saving a UTF-8 decode per event.
            let repeated =
                value.count == lastEventTypeBytes.count
                && lastEventTypeBytes.withUnsafeBytes { last in
                    guard let lastBytes = last.baseAddress, let bytes = value.baseAddress else { return value.isEmpty }
                    return memcmp(lastBytes, bytes, value.count) == 0
                }
            if repeated {
                eventTypeBuffer = lastEventType
            } else {
                eventTypeBuffer = String(decoding: value, as: UTF8.self)
                lastEventType = eventTypeBuffer
                lastEventTypeBytes = Array(value)
            }
        case .id:
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        case .retry:
            if let milliseconds = Self.decimal(value) {
                reconnectionTime = milliseconds
                blockRetry = milliseconds
            }
        case .other:
            break
        }
    }

    /// Dispatches the event read so far, per 9.2.6 "dispatch the event".
    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = lastEventIDBuffer
        defer {
            eventTypeBuffer = ""
            blockRetry = nil
        }
        guard !dataBuffer.isEmpty else { return }
        // Every data line appended an LF; the spec removes the last one.
        let data = dataBuffer.withUnsafeBufferPointer { String(decoding: $0.dropLast(), as: UTF8.self) }
        dataBuffer.removeAll(keepingCapacity: true)
        events.append(
            ServerSentEvent(
                event: eventTypeBuffer.isEmpty ? nil : eventTypeBuffer,
                data: data,
                id: lastEventIDBuffer.isEmpty ? nil : lastEventIDBuffer,
                retry: blockRetry
            )
        )
    }

    /// The integer of a `retry` value: nil unless it is non-empty, ASCII digits only, and fits `Int`.
    private static func decimal(_ value: UnsafeRawBufferPointer) -> Int? {
        guard !value.isEmpty else { return nil }
        var result = 0
        for byte in value {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (shifted, overflowedShift) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflowedSum) = shifted.addingReportingOverflow(Int(byte - 0x30))
            guard !overflowedShift, !overflowedSum else { return nil }
            result = sum
        }
        return result
    }

    /// U+003A COLON.
    private static let colon = UInt8(ascii: ":")
    /// U+0020 SPACE.
    private static let space = UInt8(ascii: " ")

    /// The field names the spec acts on, recognised from bytes without making a `String`.
    private enum Field {
        case data, event, id, retry, other

        /// The field named by the first `length` bytes of `line`.
        @inline(__always)
        init(_ line: UnsafeRawBufferPointer, length: Int) {
            let name = UnsafeRawBufferPointer(rebasing: line[..<length])
            switch length {
            case 2 where Self.is(name, "id"): self = .id
            case 4 where Self.is(name, "data"): self = .data
            case 5 where Self.is(name, "event"): self = .event
            case 5 where Self.is(name, "retry"): self = .retry
            default: self = .other
            }
        }

        /// Whether `name` is `expected`, compared byte by byte: the generic `elementsEqual` on a
        /// `String.UTF8View` took a tenth of the parse time.
        @inline(__always)
        private static func `is`(_ name: UnsafeRawBufferPointer, _ expected: StaticString) -> Bool {
            guard name.count == expected.utf8CodeUnitCount else { return false }
            let bytes = expected.utf8Start
            for index in 0..<name.count where name[index] != bytes[index] { return false }
            return true
        }
    }
}
