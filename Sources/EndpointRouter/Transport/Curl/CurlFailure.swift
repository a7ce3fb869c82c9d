#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// A libcurl result code, with what the exchange saw, as the typed error a caller and the retry
    /// rules act on: the same `URLError` codes ``URLSessionTransport`` gives for the same faults.
    struct CurlFailure {
        let code: Int32
        /// libcurl's own sentence (its error buffer, or `curl_easy_strerror`).
        let libcurlText: String
        let headArrived: Bool
        let receivedBytes: Int64
        let url: URL
        /// The proxy the exchange went through (`""`: none), whose password libcurl may quote.
        let proxy: CurlProxy

        var error: HTTPClientError {
            if code == CurlCode.timedOut { return .timedOut }
            let (urlCode, sentence) = classified
            return .transport(urlCode, sentence + " (libcurl: \(shownLibcurlText))", url: url)
        }

        /// libcurl's sentence without credentials: it quotes a proxy it cannot use whole, password
        /// included, with or without a scheme (`'user:password@host'`).
        private var shownLibcurlText: String {
            var text = libcurlText
            if !proxy.value.isEmpty { text = text.replacingOccurrences(of: proxy.value, with: proxy.shown) }
            return RedactedURL.hidingCredentials(in: text)
        }

        private var classified: (URLError.Code, String) {
            // TLS 1.3 reports a refused client certificate as an alert on the first read, not in the handshake.
            if libcurlText.lowercased().contains("certificate required") {
                return (
                    .clientCertificateRequired,
                    "The server requires a client certificate; set clientCertificate in CurlTransport.Configuration."
                )
            }
            switch code {
            case CurlCode.couldNotResolveHost:
                return (.cannotFindHost, "The host name could not be resolved; check the URL and the network's DNS.")
            case CurlCode.couldNotResolveProxy:
                return (
                    .cannotFindHost,
                    "The proxy's host name (\(proxy.shown)) could not be resolved; check the transport's `proxy` setting "
                        + "or the environment's proxy variables, and the network's DNS."
                )
            case CurlCode.proxyHandshake:
                return (
                    .cannotConnectToHost,
                    "The proxy \(proxy.shown) refused the connection to the server in its handshake; check the proxy's settings and credentials."
                )
            case CurlCode.outOfMemory where receivedBytes == 0:
                return (
                    .cannotParseResponse,
                    "The response head could not be read: a header line is larger than libcurl accepts (about 100 KiB), "
                        + "or memory ran out; check the server's response headers."
                )
            case CurlCode.couldNotConnect:
                return (.cannotConnectToHost, "The server refused the connection or could not be reached.")
            case CurlCode.malformedURL:
                return (.badURL, "libcurl could not parse the URL.")
            case CurlCode.unsupportedProtocol, CurlCode.weirdServerReply:
                return (
                    .cannotParseResponse,
                    "The server's answer is not valid HTTP; check that the URL points at an HTTP server on that port."
                )
            case CurlCode.badContentEncoding:
                return (
                    .cannotDecodeContentData,
                    "The response body's Content-Encoding is corrupt and could not be decompressed after \(receivedBytes) bytes."
                )
            case CurlCode.sendFailRewind:
                return (
                    .networkConnectionLost,
                    "The connection was lost before the server answered, and the request was not sent again; "
                        + "the request may or may not have been processed, so retry only if it is safe to repeat."
                )
            case CurlCode.gotNothing, CurlCode.sendError, CurlCode.receiveError, CurlCode.partialFile, CurlCode.http2,
                CurlCode.http2Stream:
                let when =
                    headArrived
                    ? "after \(receivedBytes) body bytes; the response is incomplete"
                    : "before the server sent a response; the request may or may not have been processed"
                return (.networkConnectionLost, "The connection was lost \(when). Retry only if the request is safe to repeat.")
            case CurlCode.peerFailedVerification, CurlCode.pinnedKeyMismatch:
                return (
                    .serverCertificateUntrusted,
                    "The server's TLS certificate is not trusted (or does not match the pinned key); "
                        + "check the certificate authority and pins configured on the transport."
                )
            case CurlCode.certificateProblem:
                return (
                    .clientCertificateRejected,
                    "The client certificate or its key could not be used: check that clientCertificate names a PEM "
                        + "certificate and its key and, for an encrypted key, that keyPassphrase is set and right."
                )
            case CurlCode.caCertificateBadFile:
                return (
                    .secureConnectionFailed,
                    "The certificate authority file could not be loaded: check that certificateAuthorityFile names a "
                        + "readable file of PEM certificates."
                )
            case CurlCode.sslConnect:
                return (
                    .secureConnectionFailed,
                    "The TLS handshake failed; check that the server speaks TLS on this port with a version the transport allows."
                )
            default:
                return (.unknown, "libcurl ended the transfer with error \(code).")
            }
        }
    }
#endif
