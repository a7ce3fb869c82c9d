#if os(Linux)
    import Foundation
    import Glibc

    @testable import EndpointRouter

    /// The certificates of the edge matrix, made at run time with the `openssl` CLI (nothing secret is
    /// checked in, and nothing expires in the repository): two independent certificate authorities,
    /// A and B, so a test can show that trusting A trusts nothing of B's; a server certificate for
    /// 127.0.0.1 (SAN `IP:127.0.0.1`, `DNS:localhost`) signed by each; a client certificate signed by
    /// each; and the A client's key three ways: unencrypted, encrypted PKCS#8 (`ENCRYPTED PRIVATE
    /// KEY`, AES-256-CBC) and the legacy OpenSSL form (`Proc-Type: 4,ENCRYPTED`), both encrypted with
    /// ``keyPassphrase``.
    ///
    /// One set is made per test process (``shared()``; about a dozen `openssl` runs) and its folder is
    /// removed when the process exits. Every key is EC P-256, which `openssl` makes in milliseconds.
    struct TestPKI: Sendable {
        /// The passphrase of the encrypted client keys: distinctive, so a test can assert that no
        /// error text ever quotes it.
        static let keyPassphrase = "k3yPassphrase"

        /// One of the two independent certificate authorities.
        enum Authority: String, Sendable, CaseIterable {
            case a = "A"
            case b = "B"
        }

        /// How the A client's private key is stored.
        enum KeyForm: String, Sendable, CaseIterable {
            /// `PRIVATE KEY`, unencrypted PKCS#8.
            case plain
            /// `ENCRYPTED PRIVATE KEY`: PKCS#8 with PBES2, AES-256-CBC (`openssl pkcs8 -topk8 -v2`).
            case pkcs8Encrypted
            /// `EC PRIVATE KEY` with `Proc-Type: 4,ENCRYPTED` and `DEK-Info` (`openssl ec -aes256`).
            case legacyEncrypted

            /// Whether the key needs ``TestPKI/keyPassphrase``.
            var isEncrypted: Bool { self != .plain }
        }

        /// The folder holding every file.
        let folder: URL

        /// The authority's own certificate (PEM), to trust it.
        func authorityCertificate(_ authority: Authority) -> String { path("ca\(authority.rawValue).pem") }
        /// A file trusting both authorities (A's certificate, then B's).
        var bothAuthorities: String { path("caAB.pem") }
        /// The server certificate for 127.0.0.1 signed by `authority` (PEM).
        func serverCertificate(_ authority: Authority) -> String { path("server\(authority.rawValue).pem") }
        /// That server certificate's unencrypted key (PEM).
        func serverKey(_ authority: Authority) -> String { path("server\(authority.rawValue).key") }
        /// A client certificate signed by `authority` (PEM).
        func clientCertificate(_ authority: Authority) -> String { path("client\(authority.rawValue).pem") }
        /// The key of ``clientCertificate(_:)`` for B (unencrypted).
        var clientKeyB: String { path("clientB.key") }
        /// The A client's key in `form`.
        func clientKeyA(_ form: KeyForm) -> String { path("clientA-\(form.rawValue).key") }

        private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        private static let made = Locked<Result<TestPKI, EdgeSetupError>?>(nil)

        /// The process's certificates, made on first use (later callers wait for them). A failure
        /// is remembered: every test then reports the same setup error instead of trying again.
        static func shared() throws -> TestPKI {
            try made.withLock { made in
                if made == nil {
                    do {
                        made = .success(try make())
                    } catch let error as EdgeSetupError {
                        made = .failure(error)
                    } catch {
                        made = .failure(EdgeSetupError(description: "could not make the test PKI: \(error)"))
                    }
                    // Registered once; a closure without captures is a C function pointer.
                    atexit { TestPKI.removeSharedFolder() }
                }
                guard let made else { throw EdgeSetupError(description: "the test PKI was not made") }
                return try made.get()
            }
        }

        /// Removes the shared folder; called at process exit.
        private static func removeSharedFolder() {
            if case .success(let pki)? = made.withLock({ $0 }) {
                try? FileManager.default.removeItem(at: pki.folder)
            }
        }

        /// The public key of the certificate at `certificateFile` as libcurl pins it: `sha256//` and the
        /// base64 SHA-256 of its SubjectPublicKeyInfo (DER).
        func publicKeyPin(of certificateFile: String) throws -> String {
            let openssl = try EdgeTools.find("openssl")
            let der = folder.appendingPathComponent("pin-\(UUID().uuidString).der").path
            defer { try? FileManager.default.removeItem(atPath: der) }
            let publicKey = try EdgeTools.run(openssl, ["x509", "-in", certificateFile, "-pubkey", "-noout"])
            let pem = folder.appendingPathComponent("pin-\(UUID().uuidString).pem")
            defer { try? FileManager.default.removeItem(at: pem) }
            try Data(publicKey.utf8).write(to: pem)
            try EdgeTools.run(openssl, ["pkey", "-pubin", "-in", pem.path, "-outform", "der", "-out", der])
            let spki = try Data(contentsOf: URL(fileURLWithPath: der))
            let digestFile = folder.appendingPathComponent("pin-\(UUID().uuidString).bin")
            defer { try? FileManager.default.removeItem(at: digestFile) }
            try EdgeTools.run(openssl, ["dgst", "-sha256", "-binary", "-out", digestFile.path, der])
            let digest = try Data(contentsOf: digestFile)
            guard !spki.isEmpty, digest.count == 32 else {
                throw EdgeSetupError(description: "openssl gave no SHA-256 of \(certificateFile)'s key")
            }
            return "sha256//" + digest.base64EncodedString()
        }

        /// The extensions of each kind of certificate; `openssl req` needs a `[req]` section too.
        private static let configuration = """
            [req]
            distinguished_name = dn
            prompt = no
            [dn]
            CN = unused
            [ca]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            [server]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature,keyEncipherment
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1,DNS:localhost
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            [client]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = clientAuth
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid

            """

        /// Makes every file in a new temporary folder; removes the folder if any step fails.
        private static func make() throws -> TestPKI {
            let openssl = try EdgeTools.find("openssl")
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("edge-pki-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let pki = TestPKI(folder: folder)
            do {
                let configuration = folder.appendingPathComponent("openssl.cnf").path
                try Data(Self.configuration.utf8).write(to: URL(fileURLWithPath: configuration))
                let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
                for authority in Authority.allCases {
                    try EdgeTools.run(
                        openssl,
                        ["req", "-x509", "-config", configuration, "-extensions", "ca"] + curve + [
                            "-keyout", pki.path("ca\(authority.rawValue).key"), "-out", pki.authorityCertificate(authority),
                            "-days", "2", "-subj", "/CN=Edge Test CA \(authority.rawValue)",
                        ])
                }
                // A key and a certificate request, then the certificate `authority` signs with `extensions`.
                func issue(_ name: String, subject: String, extensions: String, by authority: Authority, key: String) throws {
                    let request = pki.path("\(name).csr")
                    try EdgeTools.run(
                        openssl, ["req", "-new", "-config", configuration] + curve + ["-keyout", key, "-out", request, "-subj", subject])
                    try EdgeTools.run(
                        openssl,
                        [
                            "x509", "-req", "-in", request, "-CA", pki.authorityCertificate(authority),
                            "-CAkey", pki.path("ca\(authority.rawValue).key"), "-set_serial", String(UInt32.random(in: 1...UInt32.max)),
                            "-extfile", configuration, "-extensions", extensions, "-days", "1", "-out", pki.path("\(name).pem"),
                        ])
                }
                for authority in Authority.allCases {
                    try issue(
                        "server\(authority.rawValue)", subject: "/CN=127.0.0.1", extensions: "server", by: authority,
                        key: pki.serverKey(authority))
                }
                try issue("clientA", subject: "/CN=edge client A", extensions: "client", by: .a, key: pki.clientKeyA(.plain))
                try issue("clientB", subject: "/CN=edge client B", extensions: "client", by: .b, key: pki.clientKeyB)
                let passout = "pass:\(keyPassphrase)"
                try EdgeTools.run(
                    openssl,
                    [
                        "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", pki.clientKeyA(.plain), "-passout", passout,
                        "-out", pki.clientKeyA(.pkcs8Encrypted),
                    ])
                try EdgeTools.run(
                    openssl,
                    ["ec", "-in", pki.clientKeyA(.plain), "-aes256", "-passout", passout, "-out", pki.clientKeyA(.legacyEncrypted)])
                let both =
                    try String(contentsOfFile: pki.authorityCertificate(.a), encoding: .utf8)
                    + String(contentsOfFile: pki.authorityCertificate(.b), encoding: .utf8)
                try Data(both.utf8).write(to: URL(fileURLWithPath: pki.bothAuthorities))
                // The forms are what the tests claim to cover, or the setup fails.
                let pkcs8 = try String(contentsOfFile: pki.clientKeyA(.pkcs8Encrypted), encoding: .utf8)
                let legacy = try String(contentsOfFile: pki.clientKeyA(.legacyEncrypted), encoding: .utf8)
                guard pkcs8.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"), legacy.contains("Proc-Type: 4,ENCRYPTED") else {
                    throw EdgeSetupError(description: "openssl did not write the encrypted key forms expected")
                }
                return pki
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
        }
    }
#endif
