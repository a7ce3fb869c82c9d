import Foundation
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The classification of URLSession failures, row by row, from what the exchange saw; the fault suite
/// checks the same codes against a real server.
@Suite("URLSession failure classification")
struct URLSessionFailureTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let code: URLError.Code
        let text: String
        var headers: HeaderFields? = nil
        var receivedBytes: Int64 = 0
        let expected: URLError.Code

        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "reset before the head", code: .networkConnectionLost, text: "Recv failure: Connection reset by peer",
            expected: .networkConnectionLost),
        Row(name: "empty reply", code: .badServerResponse, text: "Empty reply from server", expected: .networkConnectionLost),
        Row(name: "HTTP/0.9", code: .unsupportedURL, text: "Received HTTP/0.9 when not allowed", expected: .cannotParseResponse),
        Row(
            name: "too large headers", code: .unknown, text: "Too large response headers: 307217 > 307200",
            expected: .cannotParseResponse),
        Row(name: "out of memory on a huge header", code: .unknown, text: "Out of memory", expected: .cannotParseResponse),
        Row(name: "failed writing header", code: .unknown, text: "Failed writing header", expected: .cannotParseResponse),
        Row(name: "header without colon", code: .unknown, text: "Header without colon", expected: .cannotParseResponse),
        Row(
            name: "self-signed", code: .unknown, text: "SSL certificate problem: self-signed certificate",
            expected: .serverCertificateUntrusted),
        Row(name: "TLS alert", code: .unknown, text: "OpenSSL SSL_connect: SSL_ERROR_SYSCALL", expected: .secureConnectionFailed),
        Row(name: "unknown before the head stays unknown", code: .unknown, text: "something new", expected: .unknown),
        Row(
            name: "short body", code: .unknown, text: "transfer closed with 90 bytes remaining to read",
            headers: ["Content-Length": "100"], receivedBytes: 10, expected: .networkConnectionLost),
        Row(
            name: "short body by count alone", code: .unknown, text: "something new",
            headers: ["Content-Length": "100"], receivedBytes: 10, expected: .networkConnectionLost),
        Row(
            name: "reset mid-body", code: .networkConnectionLost, text: "Recv failure: Connection reset by peer",
            headers: [:], receivedBytes: 3, expected: .networkConnectionLost),
        Row(
            name: "corrupt gzip", code: .unknown, text: "Error while processing content unencoding: incorrect header check",
            headers: ["Content-Encoding": "gzip"], expected: .cannotDecodeContentData),
        Row(
            name: "unencoding error without a Content-Encoding stays unknown", code: .unknown,
            text: "Error while processing content unencoding", headers: [:], expected: .unknown),
        Row(
            name: "unknown mid-body with the whole body stays unknown", code: .unknown, text: "something new",
            headers: ["Content-Length": "10"], receivedBytes: 10, expected: .unknown),
        Row(
            name: "refused stays refused", code: .cannotConnectToHost, text: "Couldn't connect to server",
            expected: .cannotConnectToHost),
    ]

    @Test(arguments: rows)
    func classifies(_ row: Row) {
        let head = row.headers.map { ResponseHead(statusCode: 200, headers: $0) }
        let failure = URLSessionFailure(head: head, receivedBytes: row.receivedBytes)
        let original = URLError.described(row.code, row.text)
        let classified = failure.classified(original)
        #expect(classified.code == row.expected)
        if row.expected != row.code || classified.localizedDescription != row.text {
            #expect(classified.localizedDescription.hasSuffix("(URLSession: \(row.text))"), "libcurl's text is kept")
            #expect((classified as NSError).userInfo[NSUnderlyingErrorKey] != nil, "the original is kept")
        }
    }

    /// A cancel or a timeout is never turned into something else, whatever the text or the state.
    @Test(arguments: [URLError.Code.cancelled, .timedOut])
    func cancelAndTimeoutAreNeverReclassified(_ code: URLError.Code) {
        let seen = URLSessionFailure(
            head: ResponseHead(
                statusCode: 200,
                headers: [
                    "Content-Length": "100",
                    "Content-Encoding": "gzip",
                ]),
            receivedBytes: 1)
        let error = seen.error(for: URLError.described(code, "transfer closed; unencoding; SSL certificate"))
        #expect(error == (code == .cancelled ? .cancelled : .timedOut))
        let before = URLSessionFailure().error(for: URLError.described(code, "Empty reply from server"))
        #expect(before == (code == .cancelled ? .cancelled : .timedOut))
    }
}

#if canImport(FoundationNetworking)
    /// corelibs' URLSession cannot reach an IPv6 literal host and said only "-1000"; the transport
    /// says why and what works, before anything is sent.
    @Suite struct URLSessionIPv6LiteralTests {
        @Test(arguments: ["http://[::1]:9/items", "https://[2001:db8::1]/items"])
        func anIPv6LiteralHostIsRefusedWithAReasonAPersonCanActOn(_ address: String) async throws {
            let url = try #require(URL(string: address))
            do {
                _ = try await URLSessionTransport().send(
                    OutgoingRequest(method: .get, url: url), context: testContext(), sink: MemoryBodySink(limit: nil))
                Issue.record("\(address) was sent")
            } catch {
                guard case .transport(let urlError) = error else {
                    Issue.record("expected a transport error, got \(error)")
                    return
                }
                #expect(urlError.code == .unsupportedURL)
                #expect("\(error)".contains("IPv6 literal") && "\(error)".contains("CurlTransport"), "\(error)")
            }
        }
    }
#endif
