import Foundation

/// The checks a request passes after the last middleware and before any transport, stubs included.
///
/// URLSession on Linux writes header names and methods to the wire unchecked (header injection),
/// silently drops values with line breaks, and lets a caller's `Content-Length` frame the body
/// (request smuggling). Checking here, on the library's own ``OutgoingRequest``, turns each of those into
/// a typed error whoever set the header, and whichever transport would have sent it.
enum RequestChecks {
    /// Headers the transport computes itself; a caller's value could desynchronise the connection.
    static let reservedHeaders = ["content-length", "transfer-encoding", "host", "connection"]

    /// Checks a whole request as it is about to be handed to the redirect follower and a transport.
    static func check(_ request: OutgoingRequest) throws(HTTPClientError) {
        try checkURL(request.url)
        try checkHeaders(request.headers)
        try BodyRule.check(method: request.method, hasBody: hasBody(request.body))
        if case .file(let file) = request.body, !FileManager.default.isReadableFile(atPath: file.path) {
            throw .encodingFailed("the file to upload at \(file.path) does not exist or cannot be read")
        }
    }

    /// Checks that `url` is http or https with a host: the only schemes the library sends, on every
    /// path in. A transport called directly checks it too, since libcurl would otherwise speak
    /// `gopher://`, `dict://` or `file://` for whoever hands it such a URL.
    static func checkURL(_ url: URL) throws(HTTPClientError) {
        // The host as written: whether it is empty does not depend on decoding it, and decoding cost
        // about 500 instructions a call.
        guard let scheme = url.scheme, scheme.caseInsensitiveEquals("http") || scheme.caseInsensitiveEquals("https"),
            url.host(percentEncoded: true)?.isEmpty == false
        else {
            throw .badURL("'\(printable(RedactedURL.text(of: url)))' is not an http or https URL")
        }
    }

    /// Checks a request as a transport is about to send it: its URL unless its text is the one the
    /// pipeline checked (``CallContext/checkedRequest``), its headers unless they are the ones it
    /// checked, each on its own. A transport used directly, a redirect hop, headers changed since (a
    /// transport's own, an exchange middleware's) are checked; the pipeline's own request costs no
    /// second pass (about 1,700 instructions per call for the headers, read with
    /// `callgrind_annotate --inclusive=yes` from the profiles `Benchmarks/instructions curl` writes).
    /// Compared by text, what the URL check reads, and by value: the pipeline's own values share
    /// the request's storage and compare at once.
    static func checkBeforeSending(_ request: OutgoingRequest, in context: CallContext) throws(HTTPClientError) {
        guard let checked = context.checkedRequest else {
            try checkURL(request.url)
            try checkHeaders(request.headers)
            return
        }
        if checked.url != request.url.absoluteString { try checkURL(request.url) }
        if checked.headers != request.headers { try checkHeaders(request.headers) }
    }

    /// Checks every header of a request.
    static func checkHeaders(_ headers: HeaderFields) throws(HTTPClientError) {
        for field in headers {
            try checkHeader(name: field.name, value: field.value)
        }
    }

    /// Checks one header; the message names the header and says what to change.
    ///
    /// Runs for every header of every request, so it reads UTF-8 bytes and allocates nothing: a
    /// reserved name is recognised by length and an ASCII comparison (a token is ASCII).
    static func checkHeader(name: String, value: String) throws(HTTPClientError) {
        guard isToken(name) else {
            throw .invalidHeader("header name '\(printable(name))' is not a valid token; use letters, digits and !#$%&'*+-.^_`|~ only")
        }
        guard !reservedHeaders.contains(where: { name.caseInsensitiveEquals($0) }) else {
            throw .invalidHeader("header '\(name)' is set by the transport from the body and URL; remove it from the request")
        }
        var value = value
        // The bytes read in place: iterating the UTF8View cost about 1,700 instructions per request.
        guard let byte = value.withUTF8({ $0.first { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F } }) else { return }
        switch byte {
        case 0x0D, 0x0A: throw .invalidHeader("header value for '\(name)' contains a line break; remove CR/LF")
        case 0x00: throw .invalidHeader("header value for '\(name)' contains a NUL byte; remove it")
        default: throw .invalidHeader("header value for '\(name)' contains control character 0x\(String(byte, radix: 16)); remove it")
        }
    }

    /// RFC 9110 `token`: the only characters allowed in a header name.
    static func isToken(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { !$0.isEmpty && $0.allSatisfy(isTokenByte) }
    }

    /// Whether `byte` may stand in a token (RFC 9110 §5.6.2): a header name, a cookie name.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// An empty in-memory body counts as none: URLSession sends nothing for it either.
    private static func hasBody(_ body: OutgoingRequest.Body?) -> Bool {
        switch body {
        case .data(let data): !data.isEmpty
        case .file: true
        case nil: false
        }
    }

    /// The text with control characters made visible, so an error message cannot itself inject lines.
    static func printable(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            switch scalar {
            case "\r": "\\r"
            case "\n": "\\n"
            case "\0": "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: "\\u{\(String(scalar.value, radix: 16))}"
            default: String(scalar)
            }
        }.joined()
    }
}
