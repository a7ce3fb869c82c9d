import EndpointRouter
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `caseName` is the short, secret-free label metrics and logs use for an error: the case, plus the
/// code for `.transport` and the status for `.unacceptableStatusCode`, never the message.
@Suite("HTTPClientError.caseName")
struct HTTPClientErrorCaseNameTests {
    static let response = EndpointResponse<Data>(
        value: Data("secret body".utf8), statusCode: 503, headers: HeaderFields(), data: Data("secret body".utf8),
        request: OutgoingRequest(url: URL(fileURLWithPath: "/")), url: nil)

    static let rows: [(HTTPClientError, String)] = [
        (.badURL("token=secret"), "badURL"),
        (.invalidPathSegment(position: 1, reason: .dotSegment), "invalidPathSegment"),
        (.invalidHeader("secret"), "invalidHeader"),
        (.encodingFailed("secret"), "encodingFailed"),
        (.transport(URLError(.timedOut)), "transport(\(URLError.Code.timedOut.rawValue))"),
        (.timedOut, "timedOut"),
        (.cancelled, "cancelled"),
        (.invalidResponse, "invalidResponse"),
        (.unacceptableStatusCode(response), "unacceptableStatusCode(503)"),
        (.decodingFailed(response, "secret"), "decodingFailed"),
        (.responseTooLarge(limit: 10), "responseTooLarge"),
        (.authorizationFailed("secret"), "authorizationFailed"),
    ]

    @Test(arguments: rows.indices)
    func everyCaseHasItsOwnNameWithoutItsMessage(_ index: Int) {
        let (error, name) = Self.rows[index]
        #expect(error.caseName == name)
        #expect(!error.caseName.contains("secret"))
    }

    @Test func namesAreDistinct() {
        #expect(Set(Self.rows.map { $0.0.caseName }).count == Self.rows.count)
    }
}
