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

/// The media types a streaming call reads, checked against each answer's `Content-Type`, so an
/// answer of another kind (a JSON document to `events()`, a gateway's HTML page) fails typed
/// instead of giving an empty or meaningless stream.
struct StreamMediaTypes: Sendable {
    /// The call, for the message: `events()`.
    let reader: String
    /// What it reads, for the message: `text/event-stream`.
    let expected: String
    let accepts: @Sendable (_ mediaType: String) -> Bool

    static let jsonLinesTypes: Set<String> = [
        "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonl", "application/jsonlines",
        "application/x-jsonlines", "application/json-lines",
    ]

    static func isJSON(_ type: String) -> Bool { type == "application/json" || type.hasSuffix("+json") }

    static let events = StreamMediaTypes(reader: "events()", expected: "text/event-stream") { $0 == "text/event-stream" }
    static let lines = StreamMediaTypes(reader: "lines()", expected: "text/*, JSON or JSON Lines") {
        $0.hasPrefix("text/") || isJSON($0) || jsonLinesTypes.contains($0)
    }
    // `application/json` too: servers send JSON Lines under it (httpbin's `/stream/n`).
    static let jsonLines = StreamMediaTypes(reader: "jsonLines(of:)", expected: "application/x-ndjson (or another JSON Lines or JSON type)")
    {
        jsonLinesTypes.contains($0) || isJSON($0)
    }

    /// The failure for `response`, or `nil` when its `Content-Type` is one this call reads or is
    /// missing (a server that declares no type is taken at its word that the body is what was asked for).
    func problem(_ response: EndpointResponse<Data>) -> HTTPClientError? {
        guard let header = response.headers["Content-Type"] else { return nil }
        let type = header.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard !type.isEmpty, !accepts(type) else { return nil }
        return .decodingFailed(
            response,
            "the answer's Content-Type is \(type), and \(reader) reads \(expected); the server answered something else "
                + "(read it with request(type:) or response(type:), or ask for the stream with an Accept header)")
    }
}

/// A framing that reads only answers of its media types: the first piece (or the end of an empty
/// body) of an answer of another type throws the problem instead.
struct ContentTypeChecked<Inner: StreamFraming>: StreamFraming {
    private var inner: Inner
    private let media: StreamMediaTypes
    private var problem: HTTPClientError?

    init(_ inner: Inner, media: StreamMediaTypes) {
        self.inner = inner
        self.media = media
    }

    mutating func startConnection(_ response: EndpointResponse<Data>) {
        problem = media.problem(response)
        inner.startConnection(response)
    }

    mutating func frame(_ piece: Data, into elements: inout [Inner.Element]) throws(HTTPClientError) {
        if let problem { throw problem }
        try inner.frame(piece, into: &elements)
    }

    mutating func finish(into elements: inout [Inner.Element]) throws(HTTPClientError) {
        if let problem { throw problem }
        try inner.finish(into: &elements)
    }

    var resumeHeaders: [String: String] { inner.resumeHeaders }
    var requestedRetryDelay: Duration? { inner.requestedRetryDelay }
}
