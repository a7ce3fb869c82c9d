import EndpointRouter
import EndpointRouterTesting
import Foundation
import GoldenTomTomSearch
import Testing

/// TomTom's search document as generated: its apiKey-in-query security scheme through
/// `AuthorizationMiddleware`, and several values in one path segment.
struct TomTomSearchBehaviourTests {
    @Test func theAPIKeyGoesIntoTheQueryOnceCredentialsAreSet() async throws {
        let stub = StubTransport { _ in .json("{}") }
        _ = await withTransport(stub) { await TomTomSearch.getSearchGeocode(versionNumber: 2, query: "De Ruijterkade 154", ext: .json) }
        #expect(stub.lastRequest?.queryValues(for: "key") == [])

        TomTomSearchAPI.configuration.use(
            credentials: CredentialStore(credential: { TomTomSearchAPI.Credentials.apiKey("k-1") }, refresh: { _ in .loggedOut }))
        defer { TomTomSearchAPI.configuration.use(credentials: nil) }
        _ = await withTransport(stub) {
            await TomTomSearch.getSearchGeocode(versionNumber: 2, query: "De Ruijterkade 154", ext: .json, limit: 3)
        }
        let request = try #require(stub.lastRequest)
        #expect(request.url.absoluteString.hasPrefix("https://api.tomtom.com/search/2/geocode/De%20Ruijterkade%20154.json?"))
        #expect(request.queryValues(for: "key") == ["k-1"])
        #expect(request.queryValues(for: "limit") == ["3"])
    }
}
