import Foundation

/// The status line and headers of a response: what a transport hands back for one exchange.
public struct ResponseHead: Sendable, Hashable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The header fields, in the order the transport could see them.
    public var headers: HeaderFields
    /// The URL that answered.
    public var url: URL?

    /// Creates a head.
    public init(statusCode: Int, headers: HeaderFields = HeaderFields(), url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    /// Whether a response with `statusCode` to a `method` request can carry a body at all.
    ///
    /// A response to HEAD, and any 1xx, 204 or 304, has none whatever its `Content-Length` says
    /// (RFC 9110 §6.4.1, §8.6; RFC 9112 §6.3): there the field describes the body a GET would get,
    /// and "HEAD to learn the size" is a common call. The one place this rule is written; every size
    /// check and progress total reads it through ``expectedBodyLength(answering:)``.
    public static func hasBody(statusCode: Int, answering method: RequestMethod) -> Bool {
        method != .head && !(100..<200).contains(statusCode) && statusCode != 204 && statusCode != 304
    }

    /// The size of the body a sink will receive for this response to a `method` request: `0` when
    /// the response has no body (see ``hasBody(statusCode:answering:)``), otherwise
    /// ``expectedBodyLength``; `nil` when unknown.
    ///
    /// Size limits and progress totals use this, not the bare field, so that a HEAD or a 304
    /// announcing 10 GiB is not refused as too large. The caller still reads the announced size
    /// from ``headers``.
    public func expectedBodyLength(answering method: RequestMethod) -> Int64? {
        Self.hasBody(statusCode: statusCode, answering: method) ? expectedBodyLength : 0
    }

    /// The length `Content-Length` announces, when the body is sent as is (no `Content-Encoding`):
    /// only then is it the size of the bytes a sink receives. It does not know the request: for the
    /// size a sink will actually receive (none for a HEAD, 1xx, 204 or 304) use
    /// ``expectedBodyLength(answering:)``.
    ///
    /// A repeated `Content-Length` or `Content-Encoding` gives `nil`, as their joined values would.
    public var expectedBodyLength: Int64? {
        // One pass over the fields for both names, names told apart by length first: this runs on a
        // transport's thread for every response, where two subscript lookups cost about 3,000
        // instructions (callgrind).
        var length: Int64?
        var identityOnly = true
        var encodings = 0
        // Read in place by index: a `for field in` copy retains and releases both strings of every field.
        let fields = headers.fields
        for index in fields.indices {
            switch fields[index].name.utf8.count {
            case 14 where fields[index].name.caseInsensitiveEquals("Content-Length"):
                guard length == nil, let value = Int64(fields[index].value), value >= 0 else { return nil }
                length = value
            case 16 where fields[index].name.caseInsensitiveEquals("Content-Encoding"):
                encodings += 1
                identityOnly = encodings == 1 && fields[index].value.lowercased() == "identity"
            default:
                continue
            }
        }
        return identityOnly ? length : nil
    }
}

/// A whole response as middlewares see it: the head and the body, in memory or, for a download,
/// in a file the library owns until the call ends.
///
/// <!-- snippet: prelude=doc,doc-intercept -->
/// ```swift
/// let response = try await next(request, context)
/// if response.statusCode == 401 { print("\(context.endpointName) was refused") }
/// return response
/// ```
public struct IncomingResponse: Sendable, Hashable {
    /// Status, headers and URL.
    public var head: ResponseHead
    /// The body received into memory (decompressed when the server used `Content-Encoding`); empty
    /// for a download, whose body is in ``bodyFile``.
    public var body: Data
    /// For a download with an acceptable status: the temporary file holding the body. The library
    /// moves it to the destination, or deletes it, when the call ends.
    public var bodyFile: URL?
    /// Whether the body is not in this value but streams to the caller once every middleware has
    /// returned: the response of a streaming call (`events()`, `lines()`, …) whose status is
    /// acceptable. Its end can be awaited with ``CallContext/onStreamEnd(_:)``. A response a
    /// middleware makes itself is whole, so this is `false` unless the library set it.
    public internal(set) var isStreaming = false

    /// Creates a response.
    public init(head: ResponseHead, body: Data = Data(), bodyFile: URL? = nil) {
        self.head = head
        self.body = body
        self.bodyFile = bodyFile
    }

    /// Creates a response from its parts.
    public init(statusCode: Int, headers: HeaderFields = HeaderFields(), body: Data = Data(), url: URL? = nil) {
        self.init(head: ResponseHead(statusCode: statusCode, headers: headers, url: url), body: body)
    }

    /// The HTTP status code.
    public var statusCode: Int {
        get { head.statusCode }
        set { head.statusCode = newValue }
    }

    /// The header fields.
    public var headers: HeaderFields {
        get { head.headers }
        set { head.headers = newValue }
    }

    /// The URL that answered.
    public var url: URL? {
        get { head.url }
        set { head.url = newValue }
    }
}
