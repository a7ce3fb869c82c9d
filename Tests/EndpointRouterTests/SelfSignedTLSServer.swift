import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a TLS test could not set up its server; the text says what to install.
struct TLSServerSetupError: Error, CustomStringConvertible {
    let description: String
}

/// An HTTPS server on 127.0.0.1 (ephemeral port) with a certificate made for the test: `openssl req
/// -x509` writes a self-signed certificate into a temporary folder and Python's `ssl` module serves
/// it. It answers any request that gets through the handshake with `200 ok`, and logs
/// `handshake-failed` or `request` per connection, so a test can tell which happened.
///
/// The child process is an ``EdgeChildProcess``: it exits by itself after 60 s, and ``stop()`` (or
/// deinit) kills it and removes its folder and the certificates'.
final class SelfSignedTLSServer: Sendable {
    /// The port the server listens on, on 127.0.0.1.
    var port: Int { child.port }
    private let child: EdgeChildProcess
    /// The certificates and keys the test made, beside the child's own folder.
    private let folder: URL

    private init(child: EdgeChildProcess, folder: URL) {
        self.child = child
        self.folder = folder
    }

    deinit { stop() }

    /// The server's certificate (PEM), which a client can trust as its own certificate authority.
    var certificateFile: URL { folder.appendingPathComponent("cert.pem") }

    /// The certificate's public key as libcurl pins it: `sha256//` and the base64 SHA-256 of its
    /// SubjectPublicKeyInfo (DER), computed by `openssl`.
    func publicKeyPin() throws -> String {
        let pipeline =
            "openssl x509 -in '\(certificateFile.path)' -pubkey -noout | openssl pkey -pubin -outform der "
            + "| openssl dgst -sha256 -binary | openssl base64 -A"
        let text = try EdgeTools.run(URL(fileURLWithPath: "/bin/sh"), ["-c", pipeline]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw TLSServerSetupError(description: "openssl could not hash the key") }
        return "sha256//" + text
    }

    /// The client key (``clientKeyFile``) encrypted with `passphrase` (PKCS#8, AES-256), written
    /// beside it: a key OpenSSL would prompt for if nobody gave it the passphrase.
    func encryptedClientKey(passphrase: String) throws -> URL {
        let encrypted = folder.appendingPathComponent("client-key-encrypted.pem")
        try EdgeTools.run(
            try EdgeTools.find("openssl"),
            ["pkey", "-in", clientKeyFile.path, "-aes-256-cbc", "-passout", "pass:\(passphrase)", "-out", encrypted.path])
        return encrypted
    }

    /// The certificate's subject hash, the name OpenSSL looks a trusted certificate up by in a CA
    /// directory (`<hash>.0`).
    func subjectHash() throws -> String {
        let hash = try EdgeTools.run(try EdgeTools.find("openssl"), ["x509", "-hash", "-noout", "-in", certificateFile.path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !hash.isEmpty else { throw TLSServerSetupError(description: "openssl could not hash the subject") }
        return hash
    }

    /// What the server logged so far, one line per connection.
    func log() throws -> String {
        child.logLines().joined(separator: "\n")
    }

    /// Kills the child and removes its folder and the certificate folder. Idempotent.
    func stop() {
        child.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Makes the certificate and starts the server; waits up to 10 s for it to listen. With
    /// `requiringClientCertificate`, it also makes a client certificate (``clientCertificateFile``,
    /// ``clientKeyFile``) and refuses a handshake without it (mutual TLS). With `newestTLS12`, it
    /// speaks TLS 1.2 at most. With `offeringHTTP2`, it offers `h2` by ALPN and answers a client that
    /// takes it in HTTP/2, logging `h2-request`.
    static func start(
        requiringClientCertificate: Bool = false, newestTLS12: Bool = false, offeringHTTP2: Bool = false
    ) async throws -> SelfSignedTLSServer {
        var flags: [String] = []
        if requiringClientCertificate { flags.append("mtls") }
        if newestTLS12 { flags.append("tls12") }
        if offeringHTTP2 { flags.append("h2") }
        let folder = try await offThePool { try makeCertificates(requiringClientCertificate: requiringClientCertificate) }
        do {
            return SelfSignedTLSServer(
                child: try await EdgeChildProcess.start(script: script, arguments: [folder.path] + flags), folder: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// The client certificate a mutual-TLS server accepts (PEM), and its key.
    var clientCertificateFile: URL { folder.appendingPathComponent("client-cert.pem") }
    var clientKeyFile: URL { folder.appendingPathComponent("client-key.pem") }

    private static let script = """
        import os, signal, socket, ssl, sys, time
        # The mask is inherited from the test process, which may block signals: unblock them so a kill works.
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        deadline = time.monotonic() + 60
        folder = sys.argv[1]
        certificates = sys.argv[2]
        flags = sys.argv[3:]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificates + "/cert.pem", certificates + "/key.pem")
        if "mtls" in flags:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(certificates + "/client-cert.pem")
        if "tls12" in flags:
            context.maximum_version = ssl.TLSVersion.TLSv1_2
        if "h2" in flags:
            context.set_alpn_protocols(["h2", "http/1.1"])
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.settimeout(0.5)
        with open(folder + "/port.tmp", "w") as f:
            f.write(str(listener.getsockname()[1]))
        os.rename(folder + "/port.tmp", folder + "/port")
        def log(line):
            with open(folder + "/log", "a") as f:
                f.write(line + "\\n")
        def exactly(tls, count):
            data = b""
            while len(data) < count:
                chunk = tls.recv(count - len(data))
                if not chunk:
                    raise EOFError()
                data += chunk
            return data
        def frame(kind, flags, stream, payload=b""):
            return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload
        # Just enough HTTP/2 (RFC 9113) for one GET: the preface, SETTINGS both ways, and for the first
        # HEADERS frame an answer of `:status: 200` (HPACK static index 8) and a DATA frame "ok".
        def serve_http2(tls):
            if exactly(tls, 24) != b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n":
                log("h2-bad-preface")
                return
            tls.sendall(frame(4, 0, 0))
            while True:
                head = exactly(tls, 9)
                kind, flags = head[3], head[4]
                stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
                exactly(tls, int.from_bytes(head[:3], "big"))
                if kind == 4 and not flags & 1:
                    tls.sendall(frame(4, 1, 0))
                elif kind == 1:
                    log("h2-request")
                    tls.sendall(frame(1, 4, stream, b"\\x88") + frame(0, 1, stream, b"ok"))
                    tls.sendall(frame(7, 0, 0, stream.to_bytes(4, "big") + bytes(4)))
                    # Read until the client closes: closing with its late frames unread would reset the
                    # connection, and a slow client (a sanitizer build) could lose the answer to it.
                    tls.settimeout(2)
                    try:
                        while tls.recv(65536):
                            pass
                    except Exception:
                        pass
                    return
        while time.monotonic() < deadline:
            try:
                connection, _ = listener.accept()
            except socket.timeout:
                continue
            connection.settimeout(5)
            try:
                tls = context.wrap_socket(connection, server_side=True)
            except Exception as error:
                log("handshake-failed " + type(error).__name__)
                connection.close()
                continue
            try:
                if tls.selected_alpn_protocol() == "h2":
                    serve_http2(tls)
                elif tls.recv(65536):
                    log("request")
                    tls.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nConnection: close\\r\\n\\r\\nok")
            except Exception as error:
                log("error " + type(error).__name__)
            tls.close()
        """

    /// Makes the server's certificate (and a client's, for mutual TLS) in a new folder. Each
    /// certificate's subject is its own (a random organisation): OpenSSL finds an issuer by subject
    /// name, so two servers' certificates with one subject would stand in for each other.
    private static func makeCertificates(requiringClientCertificate: Bool) throws -> URL {
        let openssl = try EdgeTools.find("openssl")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            try EdgeTools.run(
                openssl,
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", folder.appendingPathComponent("key.pem").path,
                    "-out", folder.appendingPathComponent("cert.pem").path,
                    "-days", "1", "-subj", "/CN=127.0.0.1/O=test-\(UUID().uuidString)", "-addext", "subjectAltName=IP:127.0.0.1",
                ])
            if requiringClientCertificate {
                try EdgeTools.run(
                    openssl,
                    [
                        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", folder.appendingPathComponent("client-key.pem").path,
                        "-out", folder.appendingPathComponent("client-cert.pem").path,
                        "-days", "1", "-subj", "/CN=client",
                    ])
            }
            return folder
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

}
