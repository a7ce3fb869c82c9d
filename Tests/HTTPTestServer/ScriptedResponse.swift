import Foundation

/// What the server answers to one request: a status, headers, body and how (or whether) to deliver them.
public struct ScriptedResponse: Sendable {
    /// How the response is delivered, so tests can simulate misbehaving or slow servers.
    public enum Behavior: Sendable, Equatable {
        /// Send the response; keep the connection open unless either side asked to close it.
        case normal
        /// Never answer and keep the connection open until `TestServer.stop()` or until the client closes it
        /// (which is then recorded in `TestServer.connections`).
        case hang
        /// Close the connection without sending a single byte.
        case closeWithoutResponse
        /// Reset the connection (`SO_LINGER` 0: the client sees ECONNRESET) without sending a byte, after
        /// reading the whole request.
        case resetWithoutResponse
        /// Send no `Content-Length`, write the body and close, so the body is delimited by the connection close.
        case closeDelimited
    }

    /// The status code, e.g. `200`.
    public var status: Int
    /// The reason phrase; `nil` uses the standard phrase for `status`.
    public var reason: String?
    /// Header fields written in this order, exactly as given. `Content-Length` is added after them unless
    /// they already contain `Content-Length` or `Transfer-Encoding`, or ``behavior`` is `.closeDelimited`.
    /// Streamed bodies choose their framing header as described on ``StreamedBody``.
    public var headers: [(name: String, value: String)]
    /// The body bytes; never written for HEAD requests or statuses that forbid a body (1xx, 204, 304).
    public var body: Data
    /// Seconds to wait before answering; `stop()` or the client closing the connection cuts the wait short
    /// and drops the connection.
    public var delay: TimeInterval
    /// How the response is delivered.
    public var behavior: Behavior
    /// When set, the body is generated while it is sent (see ``stream(status:headers:chunk:total:interval:announceLength:)``)
    /// and ``body`` is ignored; this is what lets tests serve gigabytes or endless bodies without holding them.
    public var streamedBody: StreamedBody?

    /// Creates a response; every parameter has a default so tests only spell out what matters to them.
    public init(
        status: Int = 200,
        reason: String? = nil,
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        delay: TimeInterval = 0,
        behavior: Behavior = .normal
    ) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.delay = delay
        self.behavior = behavior
        streamedBody = nil
    }

    /// A response with the given status, headers and raw body.
    public static func status(_ code: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) -> ScriptedResponse {
        ScriptedResponse(status: code, headers: headers, body: body)
    }

    /// A response with the given status, headers and a UTF-8 body.
    public static func status(_ code: Int, headers: [(name: String, value: String)] = [], body: String) -> ScriptedResponse {
        ScriptedResponse(status: code, headers: headers, body: Data(body.utf8))
    }

    /// A JSON body with `Content-Type: application/json`, placed before any extra `headers`.
    public static func json(_ string: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(string.utf8))
    }

    /// A plain-text body with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ string: String, status: Int = 200) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(string.utf8))
    }

    /// A redirect (e.g. 301, 302, 303, 307, 308) to `location`, with an empty body.
    public static func redirect(status: Int, location: String) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: [("Location", location)])
    }

    /// A response that is never sent; the connection stays open until `stop()` or the client closes it.
    public static var hang: ScriptedResponse {
        ScriptedResponse(behavior: .hang)
    }

    /// The connection is closed without any response bytes.
    public static var closeWithoutResponse: ScriptedResponse {
        ScriptedResponse(behavior: .closeWithoutResponse)
    }

    /// Resets the connection after reading the request, without answering.
    public static var resetWithoutResponse: ScriptedResponse {
        ScriptedResponse(behavior: .resetWithoutResponse)
    }

    /// A copy that is sent only after `seconds`.
    public func delayed(by seconds: TimeInterval) -> ScriptedResponse {
        var copy = self
        copy.delay = seconds
        return copy
    }

    /// A copy with one more header field appended.
    public func adding(header name: String, _ value: String) -> ScriptedResponse {
        var copy = self
        copy.headers.append((name: name, value: value))
        return copy
    }

    /// Whether the script carries a `Connection: close` token, which obliges us to close after sending.
    var closesConnection: Bool {
        headers.contains { field in
            field.name.caseInsensitiveCompare("Connection") == .orderedSame
                && field.value.split(separator: ",").contains {
                    $0.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare("close") == .orderedSame
                }
        }
    }

    /// Whether a header called `name` is in the script (case-insensitive).
    func hasHeader(_ name: String) -> Bool {
        headers.contains { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// 1xx, 204 and 304 never have a body.
    var bodyAllowed: Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }

    /// The complete response bytes for a request with `method`.
    /// `announceClose` adds `Connection: close` (if the script has no `Connection` header) because RFC 9112
    /// asks a server that is about to close to say so.
    func wireBytes(method: String, announceClose: Bool) -> [UInt8] {
        // HEAD responses describe the body without sending it.
        let writesBody = bodyAllowed && method != "HEAD"
        let framing: String?
        if bodyAllowed && behavior != .closeDelimited && !hasHeader("Content-Length") && !hasHeader("Transfer-Encoding") {
            framing = "Content-Length: \(body.count)"
        } else {
            framing = nil
        }
        // Head and body go out in one buffer so a single send() carries small responses in one segment.
        var bytes = headBytes(framing: framing, announceClose: announceClose)
        if writesBody { bytes.append(contentsOf: body) }
        return bytes
    }

    /// The status line, the scripted headers, the framing header the server adds (if any), an optional
    /// `Connection: close` and the blank line.
    func headBytes(framing: String?, announceClose: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason ?? Self.standardReason(status))\r\n"
        for field in headers {
            head += "\(field.name): \(field.value)\r\n"
        }
        if let framing {
            head += framing + "\r\n"
        }
        if announceClose && behavior == .normal && !hasHeader("Connection") {
            head += "Connection: close\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// A minimal response for requests the server itself rejects (malformed or oversized heads).
    static func serverError(_ status: Int) -> [UInt8] {
        Array("HTTP/1.1 \(status) \(standardReason(status))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
    }

    /// Reason phrases from RFC 9110 for the codes tests commonly use.
    static func standardReason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
