#if os(Linux)
    import Foundation

    /// The origin server of the edge matrix: Python's `ssl` on 127.0.0.1 (ephemeral port) serving a
    /// server certificate of ``TestPKI`` signed by A or by B.
    ///
    /// It answers every request with `404 Not Found`, a header `X-Origin: server` and the body
    /// ``body``: a status and a header no proxy sends, so a test can tell the server's head from a
    /// proxy's `200 Connection established`. It keeps HTTP/1.1 connections alive (closing only
    /// after 10 s idle or when the request says `Connection: close`) and serves any number of
    /// HTTP/2 streams on one connection, so a second call can reuse the first one's connection; the
    /// log counts connections for a test to assert that.
    ///
    /// Options: require a client certificate signed by A (mutual TLS), speak TLS 1.2 at most, offer
    /// `h2` by ALPN (a minimal HTTP/2 answer, as in `SelfSignedTLSServer`), or plain HTTP without
    /// TLS (for the forwarding proxy). The child exits by itself within 60 s and is killed by
    /// ``stop()``.
    final class EdgeTLSServer: Sendable {
        /// What the server may do beyond serving its certificate over TLS 1.2 or 1.3.
        struct Options: Sendable {
            /// Refuse a handshake without a client certificate signed by A.
            var requiresClientCertificate = false
            /// Speak TLS 1.2 at most.
            var newestTLS12 = false
            /// Offer `h2` (then `http/1.1`) by ALPN.
            var offersHTTP2 = false
            /// No TLS at all: plain HTTP/1.1.
            var plain = false
            /// Over HTTP/2, when above 0: the first request of a connection is answered after 300 ms,
            /// and each later one only once this many are waiting, all of them together (logged
            /// `h2-together N COUNT`). So only calls in flight at once on one connection are answered:
            /// calls sent one after another wait until the client's 10 s deadline.
            var http2AnswersTogether = 0
        }

        /// The body of every answer.
        static let body = "not found at the origin"

        private let child: EdgeChildProcess
        /// The signer of the certificate served.
        let authority: TestPKI.Authority

        /// Whether it speaks plain HTTP instead of TLS.
        let isPlain: Bool

        private init(child: EdgeChildProcess, authority: TestPKI.Authority, isPlain: Bool) {
            self.child = child
            self.authority = authority
            self.isPlain = isPlain
        }

        /// The port it listens on, on 127.0.0.1.
        var port: Int { child.port }

        /// Its base URL: `https://127.0.0.1:port`, or `http://` for a plain server.
        var baseURL: String { "\(isPlain ? "http" : "https")://127.0.0.1:\(port)" }

        /// Starts a server serving `pki`'s certificate signed by `authority`, with `options`.
        static func start(_ authority: TestPKI.Authority, pki: TestPKI, options: Options = Options()) async throws -> EdgeTLSServer {
            var arguments = [
                pki.serverCertificate(authority), pki.serverKey(authority), pki.authorityCertificate(.a),
            ]
            if options.requiresClientCertificate { arguments.append("mtls") }
            if options.newestTLS12 { arguments.append("tls12") }
            if options.offersHTTP2 { arguments.append("h2") }
            if options.plain { arguments.append("plain") }
            if options.http2AnswersTogether > 0 { arguments.append("h2-together=\(options.http2AnswersTogether)") }
            let child = try await EdgeChildProcess.start(script: script, arguments: arguments)
            return EdgeTLSServer(child: child, authority: authority, isPlain: options.plain)
        }

        /// Every log line so far: `connection N`, then `tls VERSION alpn=PROTOCOL` or
        /// `handshake-failed N ERROR`, then `request N METHOD TARGET` (HTTP/1.1) or `h2-request N` per
        /// request answered on connection N.
        func log() -> [String] { child.logLines() }

        /// TCP connections accepted so far.
        var connectionCount: Int { log().filter { $0.hasPrefix("connection ") }.count }
        /// Requests answered so far (HTTP/1.1 and HTTP/2).
        var requestCount: Int { log().filter { $0.hasPrefix("request ") || $0.hasPrefix("h2-request ") }.count }
        /// Requests answered over HTTP/2.
        var http2RequestCount: Int { log().filter { $0.hasPrefix("h2-request ") }.count }
        /// Handshakes that failed.
        var failedHandshakeCount: Int { log().filter { $0.hasPrefix("handshake-failed ") }.count }

        /// Kills the child and removes its folder. Idempotent.
        func stop() { child.stop() }

        private static let script = """
            import os, signal, socket, ssl, sys, threading, time
            # The mask is inherited from the test process, which may block signals: unblock them so a kill works.
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            deadline = time.monotonic() + 60
            folder, certificate, key, client_authority = sys.argv[1:5]
            flags = sys.argv[5:]
            together = int(next((flag[12:] for flag in flags if flag.startswith("h2-together=")), "0"))
            context = None
            if "plain" not in flags:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(certificate, key)
                if "mtls" in flags:
                    context.verify_mode = ssl.CERT_REQUIRED
                    context.load_verify_locations(client_authority)
                if "tls12" in flags:
                    context.maximum_version = ssl.TLSVersion.TLSv1_2
                if "h2" in flags:
                    context.set_alpn_protocols(["h2", "http/1.1"])
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            listener.settimeout(0.5)
            log_lock = threading.Lock()
            def log(line):
                with log_lock:
                    with open(folder + "/log", "a") as f:
                        f.write(line + "\\n")
            BODY = b"not found at the origin"
            def exactly(connection, count):
                data = b""
                while len(data) < count:
                    chunk = connection.recv(count - len(data))
                    if not chunk:
                        raise EOFError()
                    data += chunk
                return data
            def serve_http1(connection, number):
                buffered = b""
                while time.monotonic() < deadline:
                    while b"\\r\\n\\r\\n" not in buffered:
                        chunk = connection.recv(65536)
                        if not chunk:
                            return
                        buffered += chunk
                    head, buffered = buffered.split(b"\\r\\n\\r\\n", 1)
                    lines = head.decode("latin-1").split("\\r\\n")
                    method, target = lines[0].split(" ")[:2]
                    length, closing = 0, False
                    for line in lines[1:]:
                        name, _, value = line.partition(":")
                        name, value = name.strip().lower(), value.strip().lower()
                        if name == "content-length":
                            length = int(value)
                        if name == "connection" and value == "close":
                            closing = True
                    while len(buffered) < length:
                        chunk = connection.recv(65536)
                        if not chunk:
                            return
                        buffered += chunk
                    buffered = buffered[length:]
                    log("request %d %s %s" % (number, method, target))
                    extra = b"Connection: close\\r\\n" if closing else b""
                    connection.sendall(
                        b"HTTP/1.1 404 Not Found\\r\\nX-Origin: server\\r\\nContent-Type: text/plain\\r\\n" + extra
                        + b"Content-Length: " + str(len(BODY)).encode() + b"\\r\\n\\r\\n" + BODY)
                    if closing:
                        return
            def frame(kind, flags, stream, payload=b""):
                return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload
            # Just enough HTTP/2 (RFC 9113) for GETs on one connection: SETTINGS and PING answered, and
            # each HEADERS frame answered with `:status: 404` (HPACK static index 13), a literal
            # `x-origin: server` (never indexed) and a DATA frame ending the stream. No GOAWAY: the
            # connection stays for the next call until the client closes it or 10 s pass idle.
            def serve_http2(connection, number):
                if exactly(connection, 24) != b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n":
                    log("h2-bad-preface %d" % number)
                    return
                connection.sendall(frame(4, 0, 0))
                block = b"\\x8d" + b"\\x10\\x08x-origin\\x06server" + b"\\x0f\\x10\\x0atext/plain"
                def answer(stream):
                    connection.sendall(frame(1, 4, stream, block) + frame(0, 1, stream, BODY))
                answered, waiting = 0, []
                while time.monotonic() < deadline:
                    head = exactly(connection, 9)
                    kind, flags = head[3], head[4]
                    stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
                    payload = exactly(connection, int.from_bytes(head[:3], "big"))
                    if kind == 4 and not flags & 1:
                        connection.sendall(frame(4, 1, 0))
                    elif kind == 6 and not flags & 1:
                        connection.sendall(frame(6, 1, 0, payload))
                    elif kind == 1:
                        log("h2-request %d" % number)
                        if together == 0:
                            answer(stream)
                        elif answered == 0:
                            time.sleep(0.3)
                            answer(stream)
                            answered = 1
                        else:
                            waiting.append(stream)
                            if len(waiting) == together:
                                log("h2-together %d %d" % (number, together))
                                for held in waiting:
                                    answer(held)
                                waiting = []
            def serve(connection, number):
                connection.settimeout(10)
                stream = connection
                try:
                    if context is not None:
                        try:
                            stream = context.wrap_socket(connection, server_side=True)
                        except Exception as error:
                            log("handshake-failed %d %s" % (number, type(error).__name__))
                            return
                        log("tls %d %s alpn=%s" % (number, stream.version(), stream.selected_alpn_protocol()))
                        if stream.selected_alpn_protocol() == "h2":
                            serve_http2(stream, number)
                            return
                    serve_http1(stream, number)
                except Exception as error:
                    log("ended %d %s" % (number, type(error).__name__))
                finally:
                    try:
                        stream.close()
                    except Exception:
                        pass
            with open(folder + "/port.tmp", "w") as f:
                f.write(str(listener.getsockname()[1]))
            os.rename(folder + "/port.tmp", folder + "/port")
            count = 0
            while time.monotonic() < deadline:
                try:
                    connection, _ = listener.accept()
                except socket.timeout:
                    continue
                count += 1
                log("connection %d" % count)
                threading.Thread(target=serve, args=(connection, count), daemon=True).start()
            """
    }
#endif
