import AsyncHTTPClient
import EndpointRouterAsyncHTTPClient

// This package's own list for the conformance tests it links from the root package
// (Tests/EndpointRouterTestingTests): the root's copy of this file lists the transports it ships.
extension TransportUnderTest {
    /// A transport owning its client. The tests never shut it down: it is released at the end of
    /// each test, which shuts its client down in the background, the path an app that forgets
    /// `shutdown()` takes.
    static let asyncHTTPClient = TransportUnderTest(name: "AsyncHTTPClientTransport", engine: .live { _ in
        AsyncHTTPClientTransport()
    })

    /// A transport on a client the app owns, as a Vapor or Hummingbird app would pass its own.
    static let borrowedClient = TransportUnderTest(name: "AsyncHTTPClientTransport(client:)", engine: .live { _ in
        AsyncHTTPClientTransport(client: AppClient.shared)
    })

    static let all: [TransportUnderTest] = [asyncHTTPClient, borrowedClient]
}

/// The client an app would own and keep for its whole life, made the way the transport requires.
enum AppClient {
    static let shared = AsyncHTTPClient.HTTPClient(
        eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
        configuration: AsyncHTTPClient.HTTPClient.Configuration(redirectConfiguration: .disallow))
}
