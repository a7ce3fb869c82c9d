import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// Issue 40, credentials: a `CredentialStore`'s refresh limit counts refreshes over a window read on
/// the call's clock when the transport is simulated, so a test moves past the window with
/// `advance(by:)` instead of waiting 30 s.
@Suite("Credential refresh window in virtual time")
struct CredentialWindowVirtualTimeTests {
    @Test func theRefreshWindowPassesOnTheClock() async {
        let clock = VirtualClock(.manually)
        let refreshes = Locked(0)
        let store = CredentialStore(
            maximumRefreshes: 1, per: .seconds(30), credential: { .bearer("t0") },
            refresh: { _ in
                let count = refreshes.withLock { count in
                    count += 1
                    return count
                }
                return .refreshed(.bearer("t\(count)"))
            })
        // Every request is rejected: each call refreshes once, if the limit lets it.
        let stub = StubTransport().on(.get, "/todos/1", respond: .status(401))
        let authorize = AuthorizationMiddleware(store, host: "https://jsonplaceholder.typicode.com")
        // One override for the three calls: each override works on its own copy of the store.
        let (first, second, third) = await withOverride(TaskOverride(transport: stub, clock: clock)) {
            let call = { await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [authorize]) }
            // The first refresh is within the limit: the request goes again and gets its 401.
            let first = await call()
            // A second within the window fails fast, as documented, without refreshing.
            clock.advance(by: .seconds(29))
            let second = await call()
            // Past the window on the clock (no real time passed), a refresh happens again.
            clock.advance(by: .seconds(2))
            return (first, second, await call())
        }
        #expect(first.failure?.response?.statusCode == 401)
        guard case .failure(.authorizationFailed) = second else {
            Issue.record("a second refresh within the window was not refused: \(second)")
            return
        }
        #expect(third.failure?.response?.statusCode == 401)
        #expect(refreshes.withLock { $0 } == 2)
        #expect(stub.requestCount == 5)
    }
}
