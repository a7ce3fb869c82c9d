import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTPS server on 127.0.0.1 and an ephemeral port, answering every request with `200 secure`,
/// presenting the certificate chain it is given.
final class TLSTestServer: Sendable {
    static let body = "secure"

    private let channel: any Channel
    let port: Int

    init(certificate: URL, privateKey: URL) async throws {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: privateKey.path, format: .pem)))
        let context = try NIOSSLContext(configuration: configuration)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Answer())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else { throw TestFailure("the TLS server has no port") }
        self.port = port
    }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    func stop() async {
        try? await channel.close()
    }

    /// Answers each complete request.
    private final class Answer: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = Self.unwrapInboundIn(data) else { return }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain")
            headers.add(name: "Content-Length", value: "\(TLSTestServer.body.utf8.count)")
            context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: TLSTestServer.body)))), promise: nil)
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// A certificate authority and a server certificate it signed for 127.0.0.1, made by the `openssl`
/// command in a fresh directory that ``remove()`` deletes.
struct TestCertificates {
    let directory: URL
    var authority: URL { directory.appendingPathComponent("ca.pem") }
    var otherAuthority: URL { directory.appendingPathComponent("other-ca.pem") }
    var serverCertificate: URL { directory.appendingPathComponent("server.pem") }
    var serverKey: URL { directory.appendingPathComponent("server.key") }

    /// Makes two authorities (the second signs nothing: trusting only it is pinning to the wrong one)
    /// and a server certificate from the first.
    static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        try """
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1, DNS:localhost
            """.write(to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for name in ["ca", "other-ca"] {
            try await openssl(["req", "-x509"] + ec + ["-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2",
                                                       "-subj", "/CN=EndpointRouter test \(name)",
                                                       "-addext", "basicConstraints=critical,CA:TRUE",
                                                       "-addext", "keyUsage=critical,keyCertSign,cRLSign"], in: directory)
        }
        try await openssl(["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], in: directory)
        try await openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                           "-out", "server.pem", "-days", "2", "-sha256", "-extfile", "server.ext"], in: directory)
        return certificates
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func openssl(_ arguments: [String], in directory: URL) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: TestFailure("openssl could not be started: \(error)"))
            }
        }
        guard status == 0 else {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw TestFailure("openssl \(arguments.prefix(2).joined(separator: " ")) exited with \(status): \(text)")
        }
    }
}
