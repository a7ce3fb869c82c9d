import Foundation

/// Cuts a streamed body into the elements a ``ResponseStream`` hands out. One value reads one
/// connection's body at a time, in order; ``startConnection(_:)`` begins each.
protocol StreamFraming<Element>: Sendable {
    associatedtype Element: Sendable
    /// A new connection's body begins; `response` (head, request, no body) is what errors name.
    mutating func startConnection(_ response: EndpointResponse<Data>)
    /// Appends the elements `piece` completes to `elements`.
    mutating func frame(_ piece: Data, into elements: inout [Element]) throws(HTTPClientError)
    /// The body ended: appends what its end completes.
    mutating func finish(into elements: inout [Element]) throws(HTTPClientError)
    /// Headers a reconnection sends so the server resumes where this stream stopped.
    var resumeHeaders: [String: String] { get }
    /// The delay the server asked for before a reconnection, if it did.
    var requestedRetryDelay: Duration? { get }
}

extension StreamFraming {
    mutating func startConnection(_ response: EndpointResponse<Data>) {}
    var resumeHeaders: [String: String] { [:] }
    var requestedRetryDelay: Duration? { nil }
}

/// `bytes()`: the pieces as the transport delivered them.
struct PieceFraming: StreamFraming {
    mutating func frame(_ piece: Data, into elements: inout [Data]) throws(HTTPClientError) {
        elements.append(piece)
    }

    mutating func finish(into elements: inout [Data]) throws(HTTPClientError) {}
}

/// `lines()`: UTF-8 lines, LF or CRLF ended; a last line without an end is kept.
struct LineFraming: StreamFraming {
    private var splitter: LineSplitter
    private let maxLineSize: Int?

    init(maxLineSize: Int?) {
        self.maxLineSize = maxLineSize
        splitter = LineSplitter(maxLineSize: maxLineSize)
    }

    mutating func startConnection(_ response: EndpointResponse<Data>) {
        splitter = LineSplitter(maxLineSize: maxLineSize)
    }

    mutating func frame(_ piece: Data, into elements: inout [String]) throws(HTTPClientError) {
        try piece.withBytes { (bytes: UnsafeRawBufferPointer) throws(HTTPClientError) in
            try splitter.split(bytes) { line in elements.append(String(decoding: line, as: UTF8.self)) }
        }
    }

    mutating func finish(into elements: inout [String]) throws(HTTPClientError) {
        if let last = try splitter.finish() { elements.append(String(decoding: last, as: UTF8.self)) }
    }
}

/// `jsonLines(of:)`: each non-empty line (JSON Lines, NDJSON) decoded as one `Value`.
struct JSONLineFraming<Value: Decodable & Sendable>: StreamFraming {
    private var splitter: LineSplitter
    private let maxLineSize: Int?
    private let decoder: JSONDecoder
    private var lineNumber = 0
    private var response: EndpointResponse<Data>?

    init(maxLineSize: Int?, decoder: JSONDecoder) {
        self.maxLineSize = maxLineSize
        self.decoder = decoder
        splitter = LineSplitter(maxLineSize: maxLineSize)
    }

    mutating func startConnection(_ response: EndpointResponse<Data>) {
        splitter = LineSplitter(maxLineSize: maxLineSize)
        lineNumber = 0
        self.response = response
    }

    mutating func frame(_ piece: Data, into elements: inout [Value]) throws(HTTPClientError) {
        // The splitter is taken out while it calls back, which reads the other fields.
        var splitter = self.splitter
        defer { self.splitter = splitter }
        let decoding = self
        var lineNumber = self.lineNumber
        defer { self.lineNumber = lineNumber }
        try piece.withBytes { (bytes: UnsafeRawBufferPointer) throws(HTTPClientError) in
            try splitter.split(bytes) { (line: UnsafeRawBufferPointer) throws(HTTPClientError) in
                lineNumber += 1
                if let value = try decoding.decode(line, number: lineNumber) { elements.append(value) }
            }
        }
    }

    mutating func finish(into elements: inout [Value]) throws(HTTPClientError) {
        guard let last = try splitter.finish() else { return }
        lineNumber += 1
        let number = lineNumber
        let value = try last.withBytes { (line: UnsafeRawBufferPointer) throws(HTTPClientError) in try decode(line, number: number) }
        if let value { elements.append(value) }
    }

    /// The value of one line; `nil` for a blank one. The error names the line by number only: its
    /// content may be anyone's data, and error texts end up in logs.
    private func decode(_ line: UnsafeRawBufferPointer, number lineNumber: Int) throws(HTTPClientError) -> Value? {
        guard line.contains(where: { !Self.isJSONWhitespace($0) }) else { return nil }
        do {
            return try decoder.decode(Value.self, from: Data(line))
        } catch {
            let head =
                response
                ?? EndpointResponse(
                    value: Data(), statusCode: 200, headers: HeaderFields(), data: Data(),
                    request: OutgoingRequest(url: URL(fileURLWithPath: "/")), url: nil)
            throw .decodingFailed(
                head,
                "line \(lineNumber) of the stream is not a valid \(Value.self): \(DecodingFailure.describe(error, type: Value.self, body: Data(line), quotingDecoder: false))"
            )
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}

/// `events()`: Server-Sent Events, with what a reconnection needs to resume.
struct EventFraming: StreamFraming {
    private var parser: ServerSentEventParser

    init(maxEventSize: Int?) {
        parser = ServerSentEventParser(maxEventSize: maxEventSize)
    }

    mutating func startConnection(_ response: EndpointResponse<Data>) {
        parser.finishStream()
    }

    mutating func frame(_ piece: Data, into elements: inout [ServerSentEvent]) throws(HTTPClientError) {
        let events = try parser.parse(piece)
        // The reader frames only once it handed out everything: take the parser's array as it is
        // rather than copying each event into another.
        if elements.isEmpty { elements = events } else { elements.append(contentsOf: events) }
    }

    mutating func finish(into elements: inout [ServerSentEvent]) throws(HTTPClientError) {
        // The spec drops an event the stream ended in the middle of.
        parser.finishStream()
    }

    var resumeHeaders: [String: String] {
        parser.lastEventID.isEmpty ? [:] : ["Last-Event-ID": parser.lastEventID]
    }

    var requestedRetryDelay: Duration? {
        parser.reconnectionTime.map { .milliseconds($0) }
    }
}
