import EndpointRouter
import Foundation
import Testing

/// `logOut()` ends the session: the store forgets the credential it holds, so the next request asks
/// the provider again (e.g. the keychain, which the app cleared) instead of sending the old token.
@Suite("CredentialStore.logOut")
struct CredentialStoreLogOutTests {
    @Test func afterLogOutTheNextRequestAsksTheProviderAgain() async throws {
        let providerCalls = Locked(0)
        let store = CredentialStore(
            credential: {
                providerCalls.withLock { $0 += 1 }
                return providerCalls.withLock { $0 } == 1 ? .bearer("from-provider-1") : nil
            }, refresh: { _ in .failed })
        let sent = Locked<[String?]>([])
        let transport = ClosureTransport { request in
            sent.withLock { $0.append(request.headers["Authorization"]) }
            return IncomingResponse(statusCode: 200, body: Data("ok".utf8))
        }
        let endpoint = TestEndpoint(
            endpoint: "me", transport: transport,
            middlewares: [AuthorizationMiddleware(store, host: "https://api.example.com")])

        _ = try await endpoint.request(type: String.self).get()
        await store.set(.bearer("set-by-app"))
        _ = try await endpoint.request(type: String.self).get()
        await store.logOut()
        _ = try await endpoint.request(type: String.self).get()

        #expect(sent.withLock { $0 } == ["Bearer from-provider-1", "Bearer set-by-app", nil])
        #expect(providerCalls.withLock { $0 } == 2, "logOut makes the store load from the provider once more")
    }
}
