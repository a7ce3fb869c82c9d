import AsyncHTTPClient
import EndpointRouter
import EndpointRouterAsyncHTTPClient
import Foundation
import NIOSSL
import Testing

/// What URLSession on Linux cannot do: trust a private certificate authority, or trust only one.
/// A CA and a server certificate are made for each run with `openssl`; an HTTPS server on
/// 127.0.0.1 presents it.
@Suite("Custom trust and pinning through TLSConfiguration")
struct CustomTrustTests {
    /// A transport whose client trusts exactly `roots` (or the system's roots when `nil`).
    static func transport(trusting roots: URL?) throws -> AsyncHTTPClientTransport {
        var configuration = AsyncHTTPClientTransport.defaultConfiguration
        if let roots {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(roots.path))
            configuration.tlsConfiguration = tls
        }
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    static func withServer(_ body: (TestCertificates, TLSTestServer) async throws -> Void) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TLSTestServer(certificate: certificates.serverCertificate, privateKey: certificates.serverKey)
        do {
            try await body(certificates, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("With the private CA trusted, the request succeeds")
    func trustedAuthority() async throws {
        try await Self.withServer { certificates, server in
            let transport = try Self.transport(trusting: certificates.authority)
            let result = await ServerEndpoint(host: server.baseURL, endpoint: "hello", transport: transport).request(type: String.self)
            #expect(try result.get() == TLSTestServer.body)
            try await transport.shutdown()
        }
    }

    @Test("Without it (the system's roots), the request fails with .transport(.serverCertificateUntrusted)")
    func systemRootsRefuseThePrivateCA() async throws {
        try await Self.withServer { _, server in
            let transport = try Self.transport(trusting: nil)
            let result = await ServerEndpoint(host: server.baseURL, endpoint: "hello", transport: transport).request(type: String.self)
            guard case .transport(let error) = result.failure else {
                Issue.record("expected .transport, got \(result)")
                return
            }
            #expect(error.code == .serverCertificateUntrusted, "\(error.localizedDescription)")
            try await transport.shutdown()
        }
    }

    @Test("Pinned to another CA, a certificate that is otherwise valid is refused")
    func pinnedToAnotherAuthority() async throws {
        try await Self.withServer { certificates, server in
            let transport = try Self.transport(trusting: certificates.otherAuthority)
            let result = await ServerEndpoint(host: server.baseURL, endpoint: "hello", transport: transport).request(type: String.self)
            #expect(result.failure?.urlErrorCode == .serverCertificateUntrusted, "\(result)")
            try await transport.shutdown()
        }
    }
}
