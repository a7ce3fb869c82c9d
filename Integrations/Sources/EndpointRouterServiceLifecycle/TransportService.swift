import EndpointRouter
import ServiceLifecycle

/// Shuts a transport down when the app's swift-service-lifecycle `ServiceGroup` shuts down, so a
/// transport that owns a client and its threads (an `AsyncHTTPClientTransport` created without a
/// client of the app's) is closed in order with the rest of the server instead of at exit.
///
/// ```swift
/// import EndpointRouter
/// import EndpointRouterServiceLifecycle
/// import Logging
/// import ServiceLifecycle
///
/// func runServer(_ server: some Service) async throws {
///     let transport = URLSessionTransport()
///     // Services shut down in reverse order: the server stops taking requests first, then the
///     // transport its handlers were calling through.
///     let group = ServiceGroup(
///         services: [TransportService(transport), server],
///         gracefulShutdownSignals: [.sigterm],
///         logger: Logger(label: "server"))
///     try await group.run()
/// }
/// ```
///
/// With the AsyncHTTPClient companion: `TransportService(shutdown: { try await transport.shutdown() })`.
///
/// `run()` waits for the group's graceful shutdown (or for its task to be cancelled) and then
/// shuts the transport down; calls already running finish, new ones fail with a `.transport` error.
public struct TransportService: Service {
    private let shutdown: @Sendable () async throws -> Void

    /// A service that runs `shutdown` when the group shuts down: a transport's own shut-down method.
    public init(shutdown: @escaping @Sendable () async throws -> Void) {
        self.shutdown = shutdown
    }

    /// A service that shuts `transport` down when the group shuts down.
    public init(_ transport: URLSessionTransport) {
        self.init(shutdown: { transport.shutdown() })
    }

    /// Waits for the graceful shutdown (or cancellation), then shuts the transport down.
    public func run() async throws {
        // Throws CancellationError when the group cancels instead of shutting down gracefully: the
        // transport is shut down either way.
        try? await gracefulShutdown()
        try await shutdown()
    }
}
