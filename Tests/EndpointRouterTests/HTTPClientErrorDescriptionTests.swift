import EndpointRouter
import Foundation
import Testing

/// The sentences people read for the error cases ErrorDescriptionTests does not reach: an
/// authorization failure, and a rejected status whose response has no URL or no body.
@Suite("HTTPClientError descriptions: authorization and status without URL")
struct HTTPClientErrorDescriptionTests {
    func rejected(_ body: String) -> EndpointResponse<Data> {
        EndpointResponse(
            value: Data(body.utf8), statusCode: 503, headers: HeaderFields(), data: Data(body.utf8),
            request: OutgoingRequest(url: URL(fileURLWithPath: "/")), url: nil)
    }

    @Test func authorizationFailedCarriesItsReason() {
        let error = HTTPClientError.authorizationFailed("the refresh limit of 3 per 30 s was reached")
        #expect(error.description == "Authorization failed: the refresh limit of 3 per 30 s was reached")
        #expect(error.localizedDescription == error.description)
    }

    @Test func aStatusWithoutURLNamesTheServerAndPointsAtTheBody() {
        #expect(
            HTTPClientError.unacceptableStatusCode(rejected("maintenance")).description
                == "the server answered with status 503; its body (11 bytes) is in the error's `response`.")
        #expect(HTTPClientError.unacceptableStatusCode(rejected("")).description == "the server answered with status 503.")
    }
}
