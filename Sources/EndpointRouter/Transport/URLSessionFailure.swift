import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a URLSession exchange saw before it failed, and the `URLError` a caller should get for it.
///
/// On Linux, URLSession (libcurl) reports most faults as `URLError.unknown` (-1) with libcurl's own
/// text, and a response that is not HTTP as `.unsupportedURL`: a retry policy cannot tell a connection
/// lost mid-body from a corrupt gzip stream or an unreadable header block. The exchange knows what it
/// received (a head or not, how many body bytes of how many announced, which content coding), so the
/// error is classified here from those facts, with libcurl's text only telling apart faults the facts
/// cannot. Cancellation and timeouts are never reclassified; anything not recognised is passed on as
/// URLSession reported it.
///
/// | Fault | Code |
/// |---|---|
/// | closed or reset before the status line | `.networkConnectionLost` |
/// | closed or reset mid-body, fewer bytes than `Content-Length` | `.networkConnectionLost` |
/// | corrupt `Content-Encoding` (gzip, deflate, br) | `.cannotDecodeContentData` |
/// | not an HTTP/1.x status line | `.cannotParseResponse` |
/// | header block too large, header line malformed or not UTF-8 | `.cannotParseResponse` |
/// | TLS certificate not trusted | `.serverCertificateUntrusted` |
/// | other TLS failure | `.secureConnectionFailed` |
struct URLSessionFailure {
    /// The response head, if it arrived before the failure.
    var head: ResponseHead?
    /// The request's method: the body announced for a HEAD's response never comes.
    var method: RequestMethod = .get
    /// Body bytes delivered to the sink (after decompression).
    var receivedBytes: Int64 = 0

    /// The error for `error`, as the exchange saw it happen.
    func error(for error: any Error) -> HTTPClientError {
        let urlError = error as? URLError ?? URLError.described(.unknown, error.localizedDescription)
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        default: return .transport(classified(urlError))
        }
    }

    /// `error` with a specific code and a sentence a person can act on, or `error` unchanged.
    func classified(_ error: URLError) -> URLError {
        let said = error.localizedDescription
        let text = said.lowercased()
        guard let (code, sentence) = head == nil ? beforeTheHead(error.code, text) : duringTheBody(error.code, text) else {
            return error
        }
        return URLError.described(code, sentence + " (URLSession: \(said))", url: error.failingURL, underlying: error)
    }

    private func beforeTheHead(_ code: URLError.Code, _ text: String) -> (URLError.Code, String)? {
        switch code {
        case .networkConnectionLost:
            return (
                .networkConnectionLost,
                "The connection was reset before the server sent a response; "
                    + "the request may or may not have been processed, so retry only if it is safe to repeat."
            )
        case .badServerResponse where text.contains("empty reply"):
            return (
                .networkConnectionLost,
                "The server closed the connection without sending a response; "
                    + "the request may or may not have been processed, so retry only if it is safe to repeat."
            )
        case .unsupportedURL where text.contains("http"):
            // libcurl's word for an answer that is not HTTP/1.x; the library only sends http(s) URLs.
            return (
                .cannotParseResponse,
                "The server's answer does not start with an HTTP/1.x status line; "
                    + "check that the URL points at an HTTP server (not TLS or another protocol on that port)."
            )
        case .unknown:
            return Self.unknownCauses.first { $0.clues.contains { text.contains($0) } }.map { ($0.code, $0.sentence) }
        default:
            return nil
        }
    }

    /// What libcurl's text says about a failure URLSession reports as `.unknown`, checked in order:
    /// the first entry with a clue in the text names the cause.
    private static let unknownCauses: [(clues: [String], code: URLError.Code, sentence: String)] = [
        (
            ["too large", "out of memory"], .cannotParseResponse,
            "The response headers are larger than URLSession accepts "
                + "(libcurl's limit is 300 KiB on Linux); the server must send fewer or shorter headers."
        ),
        // corelibs decodes every header line as UTF-8 and aborts the transfer when one is not; a
        // blank redirect `Location` ends the same way.
        (
            ["failed writing header"], .cannotParseResponse,
            "URLSession on Linux could not read a response header: a header "
                + "that is not UTF-8 text, or a redirect with a blank Location. The server must send header "
                + "values in ASCII (RFC 9110 §5.5)."
        ),
        (
            ["certificate"], .serverCertificateUntrusted,
            "The server's TLS certificate is not trusted (URLSession on Linux "
                + "trusts the system CA store only); use a certificate from a trusted CA or add the CA to the system store."
        ),
        (
            ["ssl", "tls"], .secureConnectionFailed,
            "The TLS handshake failed; check that the server speaks TLS on "
                + "this port with a protocol version and cipher the system's OpenSSL accepts."
        ),
        (["header"], .cannotParseResponse, "A response header line is malformed; the server's answer is not valid HTTP."),
    ]

    private func duringTheBody(_ code: URLError.Code, _ text: String) -> (URLError.Code, String)? {
        guard code == .unknown || code == .networkConnectionLost else { return nil }
        let coding = head?.headers["Content-Encoding"]?.lowercased()
        let isEncoded = coding.map { $0 != "identity" } ?? false
        if code == .unknown && isEncoded && (text.contains("unencoding") || text.contains("decod")) {
            return (
                .cannotDecodeContentData,
                "The response body's Content-Encoding (\(coding ?? "")) is corrupt and "
                    + "could not be decompressed after \(receivedBytes) bytes; the server sent a broken compressed body."
            )
        }
        let announced = head?.expectedBodyLength(answering: method)
        let isShort = announced.map { receivedBytes < $0 } ?? false
        guard code == .networkConnectionLost || isShort || text.contains("transfer closed") else { return nil }
        let of = announced.map { " of the \($0) announced" } ?? ""
        return (
            .networkConnectionLost,
            "The connection was lost after \(receivedBytes)\(of) body bytes; "
                + "the response is incomplete. Retry only if the request is safe to repeat."
        )
    }
}
