import EndpointRouter
import Foundation

/// The text format of one recording, a request and its response, meant to be read in code review:
///
/// ```text
/// GET https://api.example.com/todos/1?api_key=REDACTED HTTP/1.1
/// Accept: application/json
/// Authorization: REDACTED
///
/// ### response
/// HTTP/1.1 200 OK
/// Content-Type: application/json
///
/// {"id":1,"title":"Write tests"}
/// ```
///
/// The request part is for people; replay reads only the response. The response body runs to the
/// end of the file byte for byte (no newline is added), or, when it is not UTF-8 text, follows a
/// `[base64]` line as base64.
///
/// A streamed response may add lines between `### response` and the status line (files without
/// them, written before streams were recorded, read as before):
///
/// ```text
/// ### response
/// ### cut: the consumer stopped reading after 27 bytes; the stream went on
/// ### chunk 13 bytes after 0.000 s
/// ### chunk 14 bytes after 0.051 s
/// HTTP/1.1 200 OK
/// ```
///
/// `cut` marks a stream the consumer left before it ended: the body is what it had been given.
/// Each `chunk` line is one piece as the wrapped transport delivered it, in order, with the time
/// since the previous piece (or the head), when the recorder was told to time them.
enum RecordingFile {
    static let separator = "### response"
    static let base64Marker = "[base64]"
    static let chunkPrefix = "### chunk "
    static let cutPrefix = "### cut"

    /// A recorded response as replay reads it.
    struct Response {
        var status: Int
        var headers: HeaderFields
        var body: Data
        /// The pieces and their timing, when they were recorded.
        var chunks: [RecordedChunk]?
        /// The consumer left the stream before it ended; the body is what it had been given.
        var isCut = false
    }

    static func render(
        request: OutgoingRequest, head: ResponseHead, body: Data, redaction: RecordingRedaction, chunks: [RecordedChunk]? = nil,
        isCut: Bool = false
    ) -> Data {
        let query = redaction.encodedQuery(RequestTarget.encodedQuery(of: request.url)).map { "?" + $0 } ?? ""
        let target = (origin(of: request.url) ?? "") + RequestTarget.encodedPath(of: request.url) + query
        var text = "\(request.method.rawValue) \(target) HTTP/1.1\n"
        text += headerLines(redaction.headers(request.headers))
        text += "\n"
        let requestBody: OutgoingRequest.Body? =
            switch request.body {
            case .data(let data): .data(redaction.jsonBody(data))
            case let other: other
            }
        if let shown = requestBodyText(requestBody) {
            text += shown
            if !text.hasSuffix("\n") { text += "\n" }
        }
        text += separator + "\n"
        if isCut { text += "\(cutPrefix): the consumer stopped reading after \(body.count) bytes; the stream went on\n" }
        for chunk in chunks ?? [] {
            text += chunkPrefix + "\(chunk.size) bytes after " + String(format: "%.3f", chunk.delay) + " s\n"
        }
        text += "HTTP/1.1 \(head.statusCode)\(reasonPhrase(head.statusCode).map { " " + $0 } ?? "")\n"
        let received = body
        let body = redaction.jsonBody(received)
        var responseHeaders = redaction.headers(head.headers)
        // Replay gives the headers the transport gave. Only a length that described the received body
        // follows it when redaction changes that body; a gzip body arrives decompressed under the
        // wire's (compressed) length, and a HEAD response under the length of a body never sent.
        if body.count != received.count, responseHeaders["Content-Length"].flatMap(Int.init) == received.count {
            responseHeaders.replace(name: "Content-Length", value: String(body.count))
        }
        text += headerLines(responseHeaders)
        text += "\n"
        var data = Data(text.utf8)
        if isPlainText(body) {
            data.append(body)
        } else {
            data.append(Data((base64Marker + "\n").utf8))
            data.append(Data(body.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]).utf8))
            data.append(Data("\n".utf8))
        }
        return data
    }

    /// The recorded response, or why the file is not a recording.
    static func parseResponse(_ file: Data) -> Result<Response, ParseError> {
        let bytes = [UInt8](file)
        let marker = Array(("\n" + separator + "\n").utf8)
        guard let start = firstIndex(of: marker, in: bytes) else {
            return .failure(ParseError("it has no '\(separator)' line"))
        }
        var cursor = start + marker.count
        var lines: [String] = []
        while true {
            guard let end = bytes[cursor...].firstIndex(of: UInt8(ascii: "\n")) else {
                return .failure(ParseError("the response headers do not end with a blank line"))
            }
            // A CR before the LF is tolerated in the head, in case a tool rewrote line endings.
            var line = String(decoding: bytes[cursor..<end], as: UTF8.self)
            if line.hasSuffix("\r") { line.removeLast() }
            cursor = end + 1
            if line.isEmpty { break }
            lines.append(line)
        }
        var chunks: [RecordedChunk] = []
        var isCut = false
        while let line = lines.first, line.hasPrefix("### ") {
            lines.removeFirst()
            if line.hasPrefix(cutPrefix) {
                isCut = true
            } else if line.hasPrefix(chunkPrefix) {
                guard let chunk = RecordedChunk(line: line.dropFirst(chunkPrefix.count)) else {
                    return .failure(ParseError("'\(line)' is not a chunk line such as '\(chunkPrefix)12 bytes after 0.050 s'"))
                }
                chunks.append(chunk)
            }
        }
        guard let statusLine = lines.first else { return .failure(ParseError("the status line is missing")) }
        let words = statusLine.split(separator: " ")
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let status = Int(words[1]) else {
            return .failure(ParseError("'\(statusLine)' is not a status line such as 'HTTP/1.1 200 OK'"))
        }
        var headers = HeaderFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(ParseError("the header line '\(line)' has no ':'"))
            }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.add(name: String(line[..<colon]), value: String(value))
        }
        var body = Data(bytes[cursor...])
        let base64Prefix = Data((base64Marker + "\n").utf8)
        if body.starts(with: base64Prefix) {
            guard let decoded = Data(base64Encoded: body.dropFirst(base64Prefix.count), options: .ignoreUnknownCharacters) else {
                return .failure(ParseError("the body after '\(base64Marker)' is not valid base64"))
            }
            body = decoded
        }
        return .success(Response(status: status, headers: headers, body: body, chunks: chunks.isEmpty ? nil : chunks, isCut: isCut))
    }

    /// The request line's target (`https://host/path?query`), for the replay of redacted queries.
    static func requestTarget(_ file: Data) -> String? {
        guard let end = file.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let words = String(decoding: file[..<end], as: UTF8.self).split(separator: " ")
        return words.count >= 2 ? String(words[1]) : nil
    }

    /// The lower-cased names of the request headers the file shows as `REDACTED`, for the replay of
    /// requests whose credential headers only the recorder was told about.
    static func redactedRequestHeaders(_ file: Data) -> Set<String> {
        let bytes = [UInt8](file)
        guard let headEnd = firstIndex(of: Array("\n\n".utf8), in: bytes) else { return [] }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\n").dropFirst()
        return Set(
            lines.compactMap { line -> String? in
                guard let colon = line.firstIndex(of: ":"),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) == RecordingRedaction.placeholder
                else { return nil }
                return line[..<colon].lowercased()
            })
    }

    /// The request body as the file shows it (after redaction), for the replay of redacted JSON
    /// members; `nil` when there is none or the file is not a recording.
    static func requestBody(_ file: Data) -> Data? {
        let bytes = [UInt8](file)
        guard let headEnd = firstIndex(of: Array("\n\n".utf8), in: bytes),
            let separatorLine = firstIndex(of: Array(("\n" + separator + "\n").utf8), in: bytes),
            headEnd + 2 <= separatorLine
        else { return nil }
        return Data(bytes[(headEnd + 2)..<separatorLine])
    }

    struct ParseError: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// UTF-8 that cannot be mistaken for the base64 form when read back.
    private static func isPlainText(_ body: Data) -> Bool {
        String(data: body, encoding: .utf8) != nil && !body.starts(with: Data((base64Marker + "\n").utf8))
    }

    /// Text bodies are shown unless a line could be taken for the separator; the request body is
    /// informational, so a stand-in is enough then. A file body is named, not read: it may be large,
    /// and its folder differs between machines.
    private static func requestBodyText(_ body: OutgoingRequest.Body?) -> String? {
        switch body {
        case nil:
            return nil
        case .file(let file):
            return "<body streamed from the file \(file.lastPathComponent), not shown>"
        case .data(let data):
            guard !data.isEmpty else { return nil }
            guard let text = String(data: data, encoding: .utf8) else {
                return "<binary body of \(data.count) bytes, not shown>"
            }
            if text.split(separator: "\n", omittingEmptySubsequences: false).contains(where: { $0 == separator }) {
                return "<body of \(data.count) bytes, not shown: it contains a '\(separator)' line>"
            }
            return text
        }
    }

    /// Written for readers only. Not `HTTPURLResponse.localizedString(forStatusCode:)`, whose text
    /// differs between platforms and would make the same recording differ too.
    private static func reasonPhrase(_ status: Int) -> String? {
        let phrases = [
            200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 206: "Partial Content",
            301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
            307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 410: "Gone",
            412: "Precondition Failed", 415: "Unsupported Media Type", 422: "Unprocessable Content",
            429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented",
            502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        return phrases[status]
    }

    private static func headerLines(_ headers: HeaderFields) -> String {
        headers.fields.map { "\($0.name): \($0.value)\n" }.joined()
    }

    private static func origin(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme, let host = components.percentEncodedHost
        else { return nil }
        return "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")"
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }
}

/// One piece of a streamed body as it was recorded: its size, and the seconds since the previous
/// piece (or the head) without the time spent waiting for the consumer.
struct RecordedChunk: Sendable, Equatable {
    var size: Int
    var delay: TimeInterval

    init(size: Int, delay: TimeInterval) {
        self.size = size
        self.delay = delay
    }

    /// Reads `12 bytes after 0.050 s`.
    init?(line: Substring) {
        let words = line.split(separator: " ")
        guard words.count == 5, words[1] == "bytes", words[2] == "after", words[4] == "s", let size = Int(words[0]), size >= 0,
            let delay = TimeInterval(words[3]), delay.isFinite, delay >= 0
        else { return nil }
        self.init(size: size, delay: delay)
    }
}
