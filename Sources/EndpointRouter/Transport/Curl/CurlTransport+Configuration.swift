import Foundation

extension CurlTransport {
    /// Settings of a transport: connections, decompression, proxies and TLS.
    ///
    /// Every option says exactly what it does to trust: a certificate authority file **replaces** the
    /// system store (for the server and for an HTTPS proxy alike), pins narrow what that trust
    /// accepts, and an encrypted client key is opened with ``ClientCertificate/keyPassphrase`` or not
    /// at all: OpenSSL never prompts, and nothing is read from the process's standard input.
    ///
    /// ```swift
    /// extension CurlTransport {
    ///     /// The billing service's transport: its own CA only, a client key and its passphrase, the egress proxy.
    ///     static let billing: CurlTransport? = {
    ///         var settings = CurlTransport.Configuration(certificateAuthorityFile: "/etc/billing/ca.pem")
    ///         settings.clientCertificate = .init(
    ///             certificateFile: "/etc/billing/client.pem", keyFile: "/etc/billing/client-key.pem",
    ///             keyPassphrase: ProcessInfo.processInfo.environment["BILLING_KEY_PASSPHRASE"])
    ///         settings.proxy = "http://egress.internal:3128"
    ///         return try? CurlTransport(configuration: settings)
    ///     }()
    /// }
    /// ```
    public struct Configuration: Sendable, CustomReflectable {
        /// A minimum TLS protocol version.
        public enum TLSVersion: Sendable {
            /// TLS 1.2 or later.
            case tls12
            /// TLS 1.3 only.
            case tls13
        }

        /// A client certificate for servers that require mutual TLS: the certificate and its private
        /// key as PEM files, and the key's passphrase when it is encrypted.
        ///
        /// The passphrase is handed to OpenSSL directly. Without one, an encrypted key fails the call
        /// at once with `.transport(.clientCertificateRejected)`; OpenSSL's own terminal prompt,
        /// which would block the transport's thread and read the application's standard input, is
        /// never reached. The description and `dump` show the files, never the passphrase.
        public struct ClientCertificate: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
            /// The certificate (PEM), with any intermediate certificates after it.
            public var certificateFile: String
            /// The private key (PEM), plain or encrypted.
            public var keyFile: String
            /// The passphrase of an encrypted key; `nil` for a plain one.
            public var keyPassphrase: String?

            /// Creates a client certificate from its files, and the key's passphrase if it has one.
            public init(certificateFile: String, keyFile: String, keyPassphrase: String? = nil) {
                self.certificateFile = certificateFile
                self.keyFile = keyFile
                self.keyPassphrase = keyPassphrase
            }

            /// The files, and whether a passphrase is set: never the passphrase itself.
            public var description: String {
                let passphrase = keyPassphrase == nil ? "" : ", keyPassphrase: \(Redaction.placeholder)"
                return "ClientCertificate(certificateFile: \(certificateFile), keyFile: \(keyFile)\(passphrase))"
            }

            /// What `dump` and debuggers show: the same fields as ``description``.
            public var customMirror: Mirror {
                Mirror(
                    self,
                    children: [
                        "certificateFile": certificateFile, "keyFile": keyFile,
                        "keyPassphrase": keyPassphrase == nil ? "nil" : Redaction.placeholder,
                    ])
            }
        }

        /// Connections opened at most to one host, by all of the transport's loops together.
        public var maximumConnectionsPerHost: Int
        /// How many loops carry the transport's transfers: each is a thread with its own libcurl multi
        /// handle and connection pool, so that the transfers of calls in flight together run on as
        /// many cores. Calls to one host at once spread over every loop; calls one after another stay
        /// on one loop and reuse its connection. The per-host limit is split between the loops, so
        /// there are never more loops than ``maximumConnectionsPerHost``; values below 1 count as 1.
        /// The loops share no connection, so over HTTP/2 calls at once to a host take one multiplexed
        /// connection per loop rather than one in all.
        ///
        /// The default, ``defaultLoopCount``, is one per core, at most 4.
        ///
        /// ```swift
        /// // One thread for a transport that carries a call now and then, such as a CLI's.
        /// var settings = CurlTransport.Configuration()
        /// settings.loopCount = 1
        /// let transport = try? CurlTransport(configuration: settings)
        /// ```
        public var loopCount: Int
        /// How long a loop whose transfers all ended keeps looking for the next call before it
        /// sleeps: a caller making calls one after another then finds it awake, and its call skips a
        /// thread wake-up (measured: 1.16–1.29× sequential requests a second, `Benchmarks/README.md`).
        /// When the last call came later than that but within ten times as long (a caller decoding a
        /// large body between calls), the loop sleeps on a timer until just before the next is due,
        /// then looks for it for this long. After a longer gap it sleeps until a call wakes it, so an
        /// idle transport burns no CPU. At most 1 ms counts; `.zero` never spins.
        ///
        /// The default is 100 µs. With it a caller whose calls come about 250 µs apart (a list decoded
        /// between calls) makes a fifth to a quarter more of them; calls about 0.8 ms apart go no
        /// faster and cost 40–90 µs more CPU each (`Benchmarks/README.md`, issue 41's seventh and
        /// ninth passes).
        ///
        /// ```swift
        /// // A process under a tight CPU quota gives up the latency for the CPU.
        /// var settings = CurlTransport.Configuration()
        /// settings.idleSpin = .zero
        /// let transport = try? CurlTransport(configuration: settings)
        /// ```
        public var idleSpin: Duration
        /// Whether to ask for compressed bodies (gzip, deflate, br and zstd, each whose system library
        /// loads) and decompress them, in the exchange a piece at a time so that a paused stream holds
        /// a small constant; the endpoint's size limit counts decoded bytes. Off, bodies arrive as sent.
        public var decompresses: Bool
        /// A proxy URL, such as `http://proxy:3128` or `http://user:password@proxy:3128`; `nil` takes
        /// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` from the environment with libcurl's
        /// rules, as URLSession on Linux does, read once when the transport is made; `""` uses none.
        ///
        /// An https URL goes through the proxy in a `CONNECT` tunnel: the caller sees the server's
        /// response head, never the proxy's; a proxy that refuses the tunnel fails the call with
        /// ``HTTPClientError/proxyRefused(statusCode:proxy:)``. A proxy that is not a URL libcurl can
        /// use fails the call before anything is sent. The proxy's password is in no error text.
        public var proxy: String?
        /// Hosts reached without the proxy, comma-separated (`no_proxy`'s syntax); `nil` keeps the
        /// environment's.
        public var noProxy: String?
        #if os(Linux)
            /// What the environment named when the transport was made; used where `proxy` or
            /// `noProxy` is `nil`.
            var environmentProxies = ProxyEnvironment([:])
        #endif
        /// A PEM file of the certificate authorities to trust **instead of** the system store: with
        /// it set, a certificate that chains only to a system authority is refused. It is the trust
        /// for an HTTPS proxy too. A file that cannot be read fails the call before anything is sent;
        /// one found readable is looked at again after a second, not at every call, so a file removed
        /// is noticed within a second.
        public var certificateAuthorityFile: String?
        /// The server's public keys to accept, each `sha256//` and the base64 SHA-256 of its
        /// SubjectPublicKeyInfo; any other key fails the handshake. Empty: no pinning. Pins apply to
        /// the server, after the certificate is trusted, not to a proxy.
        public var pinnedPublicKeys: [String]
        /// A client certificate for servers that require mutual TLS.
        public var clientCertificate: ClientCertificate?
        /// The oldest TLS version accepted, from the server and from an HTTPS proxy; `nil` takes
        /// libcurl's default.
        public var minimumTLSVersion: TLSVersion?

        /// One loop per core, at most 4 (``loopCount``'s default).
        ///
        /// Bounded because each loop costs a thread, a multi handle, a few idle easy handles of 16 KiB
        /// each, and connections and TLS sessions of its own: calls at once to a host open a
        /// connection, and a handshake, per loop. With the default 6 connections per host, 4 loops
        /// still give each loop at least one connection to the host and most of them two; past that
        /// one transport's libcurl work is rarely what a process waits for.
        public static var defaultLoopCount: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

        /// Creates settings: 6 connections per host, ``defaultLoopCount`` loops, decompression on,
        /// proxies from the environment, the system's trust store.
        public init(
            maximumConnectionsPerHost: Int = 6, decompresses: Bool = true, proxy: String? = nil, noProxy: String? = nil,
            certificateAuthorityFile: String? = nil, pinnedPublicKeys: [String] = [],
            clientCertificate: ClientCertificate? = nil, minimumTLSVersion: TLSVersion? = nil
        ) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.loopCount = Self.defaultLoopCount
            self.idleSpin = .microseconds(100)
            self.decompresses = decompresses
            self.proxy = proxy
            self.noProxy = noProxy
            self.certificateAuthorityFile = certificateAuthorityFile
            self.pinnedPublicKeys = pinnedPublicKeys
            self.clientCertificate = clientCertificate
            self.minimumTLSVersion = minimumTLSVersion
        }

        /// What `dump` and debuggers show: every setting, with the proxy's userinfo and the key's
        /// passphrase left out, since a dumped configuration ends up in logs.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "maximumConnectionsPerHost": maximumConnectionsPerHost, "loopCount": loopCount, "idleSpin": idleSpin,
                    "decompresses": decompresses,
                    "proxy": proxy.map { CurlProxy($0).shown } as Any, "noProxy": noProxy as Any,
                    "certificateAuthorityFile": certificateAuthorityFile as Any, "pinnedPublicKeys": pinnedPublicKeys,
                    "clientCertificate": clientCertificate as Any, "minimumTLSVersion": minimumTLSVersion as Any,
                ])
        }
    }
}

#if os(Linux)
    internal import CLibcurl

    extension CurlTransport.Configuration {
        /// A setting ``apply(to:scheme:)`` could not set, named as the caller wrote it.
        enum Refusal: Equatable {
            /// It holds a NUL, where libcurl would read it cut short; the caller's to fix.
            case nul(setting: String)
            /// libcurl refused it: an option this build lacks, or a value it rejects.
            case libcurl(setting: String)
            /// A file it names cannot be read by this process.
            case unreadableFile(setting: String, path: String, exists: Bool)
            /// The proxy is not a URL libcurl can use; `shown` is it without its userinfo.
            case unusableProxy(shown: String)
        }

        /// The proxy a URL of `scheme` goes through, as configured or from the environment; `""`: none.
        func proxy(forScheme scheme: String?) -> String {
            proxy ?? environmentProxies.proxy(forScheme: scheme)
        }

        /// Sets the TLS and proxy options on `easy`, for a URL of `scheme`; returns the first setting
        /// that could not be set, for the caller's message. `isReadable` says whether a file a setting
        /// names can be read: the loop's ``CurlReadableFiles``, which spares most requests the question.
        func apply(to easy: UnsafeMutableRawPointer, scheme: String?, isReadable: (String) -> Bool) -> Refusal? {
            var refusal: Refusal?
            func set(_ option: Int32, _ text: String?, _ name: String) {
                guard refusal == nil else { return }
                guard let text else {
                    if libcurl_easy_setopt_pointer(easy, option, nil) != 0 { refusal = .libcurl(setting: name) }
                    return
                }
                if text.utf8.contains(0) {
                    refusal = .nul(setting: name)
                } else if text.withCString({ libcurl_easy_setopt_pointer(easy, option, $0) }) != 0 {
                    refusal = .libcurl(setting: name)
                }
            }
            func setLong(_ option: Int32, _ value: Int, _ name: String) {
                guard refusal == nil else { return }
                if libcurl_easy_setopt_long(easy, option, value) != 0 { refusal = .libcurl(setting: name) }
            }
            func readable(_ path: String, _ name: String) {
                guard refusal == nil, !path.utf8.contains(0), !isReadable(path) else { return }
                refusal = .unreadableFile(setting: name, path: path, exists: FileManager.default.fileExists(atPath: path))
            }
            // Always set, so libcurl does not read the environment itself on the loop thread.
            let proxy = proxy(forScheme: scheme)
            if let problem = CurlProxy(proxy).problem { return .unusableProxy(shown: problem) }
            set(CurlOption.proxy, proxy, "proxy")
            set(CurlOption.noProxy, noProxy ?? environmentProxies.noProxy ?? "", "noProxy")
            // The proxy's `200 Connection established` is no response of the server's: without this,
            // libcurl hands it to the header callback as if it were.
            setLong(CurlOption.suppressConnectHeaders, 1, "proxy")
            if let certificateAuthorityFile {
                set(CurlOption.caInfo, certificateAuthorityFile, "certificateAuthorityFile")
                readable(certificateAuthorityFile, "certificateAuthorityFile")
                // libcurl keeps its compiled-in CA directory beside CAINFO: clearing it makes the file
                // the only trust, as the setting promises; the same for an HTTPS proxy.
                set(CurlOption.caPath, nil, "certificateAuthorityFile")
                set(CurlOption.proxyCAInfo, certificateAuthorityFile, "certificateAuthorityFile")
                set(CurlOption.proxyCAPath, nil, "certificateAuthorityFile")
            }
            if !pinnedPublicKeys.isEmpty { set(CurlOption.pinnedPublicKey, pinnedPublicKeys.joined(separator: ";"), "pinnedPublicKeys") }
            if let clientCertificate {
                set(CurlOption.sslCert, clientCertificate.certificateFile, "clientCertificate")
                set(CurlOption.sslKey, clientCertificate.keyFile, "clientCertificate")
                readable(clientCertificate.certificateFile, "clientCertificate")
                readable(clientCertificate.keyFile, "clientCertificate")
                // Always set, even empty: with a passphrase set libcurl gives OpenSSL a callback that
                // answers with it, where OpenSSL's default would prompt on the terminal and read the
                // app's standard input on the loop thread.
                set(CurlOption.keyPassword, clientCertificate.keyPassphrase ?? "", "clientCertificate")
            }
            if let minimumTLSVersion {
                // CURL_SSLVERSION_TLSv1_2 and CURL_SSLVERSION_TLSv1_3.
                let value = minimumTLSVersion == .tls12 ? 6 : 7
                setLong(CurlOption.sslVersion, value, "minimumTLSVersion")
                setLong(CurlOption.proxySSLVersion, value, "minimumTLSVersion")
            }
            return refusal
        }
    }
#endif
