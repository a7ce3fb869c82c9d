#if os(Linux)
    import Foundation

    /// An HTTP proxy for the edge matrix, in Python on 127.0.0.1 (ephemeral port): it tunnels
    /// `CONNECT host:port` (answering `HTTP/1.1 200 Connection established` with headers
    /// `Proxy-Agent: edge-proxy` and `X-Origin: proxy`, then relaying bytes both ways)
    /// and forwards a plain `GET http://…` in absolute form to its target (HTTP/1.1, one request
    /// per connection). A test can tell what the proxy did from its log and whose head a caller saw
    /// from `X-Origin`.
    ///
    /// Options: require `Proxy-Authorization: Basic` with ``user`` and a password (a request without
    /// them, or with others, is answered `407` with `Proxy-Authenticate: Basic`), refuse every
    /// `CONNECT` with a given status, or speak TLS itself (an HTTPS proxy, serving a certificate of
    /// ``TestPKI``, logging `handshake-failed` when a client refuses it). The log never holds a credential. Every connection and tunnel
    /// is bounded (10 s idle, 60 s in all), and the child is killed by ``stop()``.
    final class TestProxy: Sendable {
        /// The user name the proxy expects when it requires credentials.
        static let user = "edge"
        /// The password it expects: distinctive, so a test can assert no error text quotes it.
        static let password = "s3cretProxyPW"

        private let child: EdgeChildProcess

        /// Whether clients speak TLS to the proxy itself (`https://` proxy URLs).
        let isHTTPS: Bool

        private init(child: EdgeChildProcess, isHTTPS: Bool) {
            self.child = child
            self.isHTTPS = isHTTPS
        }

        /// The port it listens on, on 127.0.0.1.
        var port: Int { child.port }
        /// `127.0.0.1:port`, as an error naming the proxy would show it.
        var hostAndPort: String { "127.0.0.1:\(port)" }
        /// Its URL without credentials.
        var url: String { "\(isHTTPS ? "https" : "http")://\(hostAndPort)" }
        /// Its URL with `user:password@` (the proxy's own by default).
        func url(user: String = TestProxy.user, password: String = TestProxy.password) -> String {
            "\(isHTTPS ? "https" : "http")://\(user):\(password)@\(hostAndPort)"
        }

        /// Starts a proxy; with `requiringCredentials` it answers 407 to any request without
        /// ``user`` and ``password``; with `refusingConnectWith` it answers every `CONNECT` with that
        /// status (a 407 with `Proxy-Authenticate`), after any credential check; with `tls` it is an
        /// HTTPS proxy serving that certificate and key, speaking TLS 1.2 at most with `newestTLS12`.
        static func start(
            requiringCredentials: Bool = false, refusingConnectWith refusal: Int? = nil, tls: (certificate: String, key: String)? = nil,
            newestTLS12: Bool = false
        ) async throws -> TestProxy {
            var arguments: [String] = []
            if let tls { arguments += ["tls-certificate=" + tls.certificate, "tls-key=" + tls.key] }
            if newestTLS12 { arguments.append("tls12") }
            if requiringCredentials {
                arguments.append("auth=" + Data("\(user):\(password)".utf8).base64EncodedString())
            }
            if let refusal { arguments.append("refuse=\(refusal)") }
            return TestProxy(child: try await EdgeChildProcess.start(script: script, arguments: arguments), isHTTPS: tls != nil)
        }

        /// Every log line so far: `CONNECT host:port`, `FORWARD METHOD URL`,
        /// `refused STATUS METHOD TARGET`, `auth-refused METHOD TARGET` (with no credential) or
        /// `handshake-failed ERROR` (an HTTPS proxy whose certificate the client refused).
        func log() -> [String] { child.logLines() }

        /// The targets of the tunnels opened so far (`127.0.0.1:port`).
        var tunnels: [String] { log().compactMap { $0.hasPrefix("CONNECT ") ? String($0.dropFirst(8)) : nil } }
        /// The URLs of the requests forwarded so far.
        var forwarded: [String] { log().compactMap { $0.hasPrefix("FORWARD ") ? $0.split(separator: " ").last.map(String.init) : nil } }

        /// Kills the child and removes its folder. Idempotent.
        func stop() { child.stop() }

        private static let script = """
            import os, select, signal, socket, ssl, sys, threading, time, urllib.parse
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            deadline = time.monotonic() + 60
            folder = sys.argv[1]
            expected, refusal, certificate, key = None, None, None, None
            for flag in sys.argv[2:]:
                if flag.startswith("tls-certificate="):
                    certificate = flag[len("tls-certificate="):]
                if flag.startswith("tls-key="):
                    key = flag[len("tls-key="):]
                if flag.startswith("auth="):
                    expected = "Basic " + flag[5:]
                if flag.startswith("refuse="):
                    refusal = int(flag[7:])
            context = None
            if certificate is not None:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(certificate, key)
                if "tls12" in sys.argv[2:]:
                    context.maximum_version = ssl.TLSVersion.TLSv1_2
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            listener.settimeout(0.5)
            log_lock = threading.Lock()
            def log(line):
                with log_lock:
                    with open(folder + "/log", "a") as f:
                        f.write(line + "\\n")
            REASONS = {403: "Forbidden", 407: "Proxy Authentication Required", 502: "Bad Gateway", 400: "Bad Request"}
            def answer(client, status):
                body = b"refused by the proxy"
                extra = b'Proxy-Authenticate: Basic realm="edge"\\r\\n' if status == 407 else b""
                client.sendall(
                    ("HTTP/1.1 %d %s\\r\\n" % (status, REASONS.get(status, "Refused"))).encode() + extra
                    + b"X-Origin: proxy\\r\\nContent-Length: " + str(len(body)).encode() + b"\\r\\nConnection: close\\r\\n\\r\\n" + body)
            def pump(source, destination):
                try:
                    while time.monotonic() < deadline:
                        data = source.recv(65536)
                        if not data:
                            break
                        destination.sendall(data)
                except Exception:
                    pass
                try:
                    destination.shutdown(socket.SHUT_WR)
                except Exception:
                    pass
            # Both ways on one thread with select (a TLS socket must not be read and written from two
            # threads at once); ends when either side closes, or after 10 s idle.
            def tunnel(client, upstream):
                sockets = [client, upstream]
                while time.monotonic() < deadline:
                    ready = [s for s in sockets if isinstance(s, ssl.SSLSocket) and s.pending()]
                    if not ready:
                        ready = select.select(sockets, [], [], 10)[0]
                        if not ready:
                            return
                    for source in ready:
                        data = source.recv(65536)
                        if not data:
                            return
                        (upstream if source is client else client).sendall(data)
            def handle(client):
                client.settimeout(10)
                try:
                    if context is not None:
                        try:
                            client = context.wrap_socket(client, server_side=True)
                        except Exception as error:
                            log("handshake-failed " + type(error).__name__)
                            return
                    buffered = b""
                    while b"\\r\\n\\r\\n" not in buffered:
                        chunk = client.recv(65536)
                        if not chunk or len(buffered) > 65536:
                            return
                        buffered += chunk
                    head, rest = buffered.split(b"\\r\\n\\r\\n", 1)
                    lines = head.decode("latin-1").split("\\r\\n")
                    method, target = lines[0].split(" ")[:2]
                    fields = []
                    authorization = None
                    for line in lines[1:]:
                        name, _, value = line.partition(":")
                        if name.strip().lower() == "proxy-authorization":
                            authorization = value.strip()
                        elif name.strip().lower() not in ("proxy-connection", "connection"):
                            fields.append(line)
                    if expected is not None and authorization != expected:
                        log("auth-refused %s %s" % (method, target))
                        answer(client, 407)
                        return
                    if method == "CONNECT":
                        if refusal is not None:
                            log("refused %d %s %s" % (refusal, method, target))
                            answer(client, refusal)
                            return
                        host, _, port = target.rpartition(":")
                        upstream = socket.create_connection((host, int(port)), timeout=5)
                        upstream.settimeout(10)
                        log("CONNECT " + target)
                        client.sendall(b"HTTP/1.1 200 Connection established\\r\\nProxy-Agent: edge-proxy\\r\\nX-Origin: proxy\\r\\n\\r\\n")
                        if rest:
                            upstream.sendall(rest)
                        tunnel(client, upstream)
                        upstream.close()
                        return
                    url = urllib.parse.urlsplit(target)
                    if url.scheme != "http" or not url.hostname:
                        log("refused 400 %s %s" % (method, target))
                        answer(client, 400)
                        return
                    log("FORWARD %s %s" % (method, target))
                    upstream = socket.create_connection((url.hostname, url.port or 80), timeout=5)
                    upstream.settimeout(10)
                    path = (url.path or "/") + ("?" + url.query if url.query else "")
                    request = "%s %s HTTP/1.1\\r\\n" % (method, path) + "".join(f + "\\r\\n" for f in fields) + "Connection: close\\r\\n\\r\\n"
                    upstream.sendall(request.encode("latin-1") + rest)
                    pump(upstream, client)
                    upstream.close()
                except Exception as error:
                    log("error " + type(error).__name__)
                finally:
                    client.close()
            with open(folder + "/port.tmp", "w") as f:
                f.write(str(listener.getsockname()[1]))
            os.rename(folder + "/port.tmp", folder + "/port")
            while time.monotonic() < deadline:
                try:
                    client, _ = listener.accept()
                except socket.timeout:
                    continue
                threading.Thread(target=handle, args=(client,), daemon=True).start()
            """
    }
#endif
