#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing
    import Glibc

    @testable import EndpointRouter

    extension Serialized {
        /// Trust and keys exactly as configured (issue 39): a certificate authority file replaces the
        /// system store, and an encrypted client key never makes OpenSSL prompt or read the process's
        /// standard input. Serialized: one test puts a certificate in the system's CA directory for
        /// its duration, and another swaps the process's standard input.
        @Suite struct CurlTransportTrustTests {
            /// libcurl's compiled-in CA directory on Debian, which it searched beside a configured file.
            static let systemCADirectory = "/etc/ssl/certs"

            static func call(_ server: SelfSignedTLSServer, _ transport: CurlTransport) async -> Result<Data, HTTPClientError> {
                await TestEndpoint(host: "https://127.0.0.1:\(server.port)", endpoint: "items", timeout: 10, transport: transport)
                    .request(type: Data.self)
            }

            /// With `certificateAuthorityFile` set, a server whose certificate the system trusts is
            /// refused: the file is the whole trust. The test makes the system trust one server for its
            /// duration (its certificate under its subject hash in the system's CA directory), checks
            /// that a transport with the system store reaches it, then that a transport trusting only
            /// another CA does not, on a new connection and after a call it trusted. Before the fix the
            /// CA directory stayed active and the call succeeded.
            @Test(
                .enabled(
                    if: FileManager.default.isWritableFile(atPath: systemCADirectory), "needs root to add a CA to \(systemCADirectory)"))
            func aCertificateAuthorityFileReplacesTheSystemStore() async throws {
                let systemTrusted = try await SelfSignedTLSServer.start()
                defer { systemTrusted.stop() }
                let privateCA = try await SelfSignedTLSServer.start()
                defer { privateCA.stop() }
                let hash = try systemTrusted.subjectHash()
                let slot = try #require(
                    (0..<10).lazy.map { "\(Self.systemCADirectory)/\(hash).\($0)" }.first { !FileManager.default.fileExists(atPath: $0) })
                try FileManager.default.copyItem(atPath: systemTrusted.certificateFile.path, toPath: slot)
                defer { try? FileManager.default.removeItem(atPath: slot) }

                let systemStore = try CurlTransport()
                let trustedBySystem = await Self.call(systemTrusted, systemStore)
                #expect(trustedBySystem.failure == nil, "the system store should trust the certificate just added: \(trustedBySystem)")

                let onlyPrivate = try CurlTransport(configuration: .init(certificateAuthorityFile: privateCA.certificateFile.path))
                let refused = await Self.call(systemTrusted, onlyPrivate)
                #expect(refused.failure?.caseName == "transport(\(URLError.serverCertificateUntrusted.rawValue))", "\(refused)")
                let trusted = await Self.call(privateCA, onlyPrivate)
                #expect(trusted.failure == nil, "\(trusted)")
                let refusedAgain = await Self.call(systemTrusted, onlyPrivate)
                #expect(refusedAgain.failure?.caseName == "transport(\(URLError.serverCertificateUntrusted.rawValue))", "\(refusedAgain)")
            }

            /// Runs `body` with the process's standard input replaced by a pipe holding `input`, and
            /// returns what was left unread in the pipe afterwards (read without blocking).
            static func withStandardInput(_ input: String, _ body: () async throws -> Void) async throws -> String {
                var ends: [Int32] = [0, 0]
                try #require(pipe(&ends) == 0)
                let saved = dup(0)
                try #require(saved >= 0)
                _ = input.withCString { write(ends[1], $0, strlen($0)) }
                close(ends[1])
                dup2(ends[0], 0)
                do {
                    try await body()
                } catch {
                    dup2(saved, 0)
                    close(saved)
                    close(ends[0])
                    throw error
                }
                dup2(saved, 0)
                close(saved)
                _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
                var left = [UInt8](repeating: 0, count: 4096)
                let count = read(ends[0], &left, left.count)
                close(ends[0])
                return count > 0 ? String(decoding: left[0..<count], as: UTF8.self) : ""
            }

            /// An encrypted client key opens with its passphrase; without it, or with a wrong one, the
            /// call fails typed at once. OpenSSL never prompts: a pipe on standard input keeps every
            /// byte, and neither the call nor an unrelated one on the same transport waits. Before the
            /// fix OpenSSL read the passphrase from standard input on the loop thread.
            @Test func anEncryptedClientKeyNeverPromptsAndNeedsItsPassphrase() async throws {
                let server = try await SelfSignedTLSServer.start(requiringClientCertificate: true)
                defer { server.stop() }
                let plain = try TestServer { _ in .json("{}") }
                defer { plain.stop() }
                let encryptedKey = try server.encryptedClientKey(passphrase: "k3yPassphrase")
                func transport(_ passphrase: String?) throws -> CurlTransport {
                    try CurlTransport(
                        configuration: .init(
                            certificateAuthorityFile: server.certificateFile.path,
                            clientCertificate: .init(
                                certificateFile: server.clientCertificateFile.path, keyFile: encryptedKey.path, keyPassphrase: passphrase)))
                }
                let input = "k3yPassphrase\nk3yPassphrase\nk3yPassphrase\n"
                let left = try await Self.withStandardInput(input) {
                    for passphrase in [nil, "wrong"] {
                        let refusing = try transport(passphrase)
                        let started = ContinuousClock.now
                        async let unrelated = TestEndpoint(host: plain.baseURL, endpoint: "x", timeout: 2, transport: refusing)
                            .request(type: Data.self)
                        let result = await Self.call(server, refusing)
                        #expect(ContinuousClock.now - started < .seconds(5), "\(passphrase ?? "nil"): \(result)")
                        #expect(
                            result.failure?.caseName == "transport(\(URLError.clientCertificateRejected.rawValue))",
                            "\(passphrase ?? "nil"): \(result)")
                        #expect(!"\(result)".contains("k3yPassphrase"))
                        #expect((await unrelated).failure == nil)
                    }
                    let opening = await Self.call(server, try transport("k3yPassphrase"))
                    #expect(opening.failure == nil, "\(opening)")
                }
                #expect(left == input, "OpenSSL read the process's standard input")
            }
        }
    }
#endif
