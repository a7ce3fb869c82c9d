import AsyncHTTPClient
import EndpointRouter
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// How a failure inside AsyncHTTPClient or SwiftNIO reaches the caller: as the library's own error
/// when it is one (the sink's refusal, a cancellation), otherwise as `.transport` with the
/// `URLError` code URLSession would have used, so callers handle both transports alike.
enum TransportFailure {
    static func map(_ error: any Error, url: URL) -> EndpointRouter.HTTPClientError {
        if let error = error as? EndpointRouter.HTTPClientError { return error }
        // However AsyncHTTPClient reports it (its own `.cancelled`, a `CancellationError`, a closed
        // stream), an exchange that ended because its task was cancelled ended by cancellation.
        if Task.isCancelled || error is CancellationError { return .cancelled }
        let (code, text) = describe(error)
        return .transport(code, text, url: url)
    }

    private static func describe(_ error: any Error) -> (URLError.Code, String) {
        switch error {
        case let error as AsyncHTTPClient.HTTPClientError:
            return describe(error)
        case let error as NIOConnectionError:
            // Every address of the host was tried: the first failure is as telling as any.
            if let first = error.connectionErrors.first { return describe(first.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return (.cannotFindHost, "the host \(error.host) could not be resolved")
            }
            return (.cannotConnectToHost, "no connection could be opened to \(error.host):\(error.port)")
        case let error as IOError:
            return describe(errno: error.errnoCode, error)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return (.timedOut, "the connection could not be opened in time")
            case .eof, .ioOnClosedChannel, .outputClosed, .alreadyClosed:
                return (.networkConnectionLost, "the connection closed before the response was complete")
            default: return (.unknown, "the connection failed: \(error)")
            }
        case is SocketAddressError:
            return (.cannotFindHost, "the host could not be resolved: \(error)")
        case let error as NIOSSLError:
            return describe(error)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return (.serverCertificateHasUnknownRoot, "the server's certificate is not for this host: \(error)")
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError:
            return (
                .cannotDecodeContentData,
                "the compressed response body could not be decoded, or it expands "
                    + "beyond \(AsyncHTTPClientTransport.decompressionRatioLimit) times its size (a decompression bomb): \(error)"
            )
        case is HTTPParserError:
            return (.badServerResponse, "the server's response is not valid HTTP: \(error)")
        default:
            return (.unknown, "AsyncHTTPClient failed: \(error)")
        }
    }

    private static func describe(_ error: AsyncHTTPClient.HTTPClientError) -> (URLError.Code, String) {
        switch error {
        case .invalidURL, .emptyHost, .emptyScheme:
            (.badURL, "AsyncHTTPClient cannot use this URL (\(error))")
        case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
            (.timedOut, "no connection to the server could be made in time (\(error))")
        case .readTimeout, .writeTimeout, .deadlineExceeded:
            (.timedOut, "the server did not answer in time (\(error))")
        case .remoteConnectionClosed:
            (.networkConnectionLost, "the server closed the connection before the response was complete")
        case .alreadyShutdown:
            (.resourceUnavailable, "this AsyncHTTPClientTransport's client was shut down; create a new transport")
        case .bodyLengthMismatch:
            (.badServerResponse, "the body length does not match its Content-Length (\(error))")
        case .cancelled:
            (.cancelled, "AsyncHTTPClient cancelled the request")
        default:
            (.unknown, "AsyncHTTPClient failed: \(error)")
        }
    }

    private static func describe(errno: Int32, _ error: any Error) -> (URLError.Code, String) {
        switch errno {
        case ECONNREFUSED: (.cannotConnectToHost, "the server refused the connection")
        case ETIMEDOUT: (.timedOut, "the connection timed out")
        case ENETUNREACH, EHOSTUNREACH: (.notConnectedToInternet, "the server's network cannot be reached")
        case ECONNRESET, EPIPE: (.networkConnectionLost, "the server reset the connection")
        default: (.unknown, "the connection failed: \(error)")
        }
    }

    private static func describe(_ error: NIOSSLError) -> (URLError.Code, String) {
        // BoringSSL names a failed chain check CERTIFICATE_VERIFY_FAILED; its error has no other handle.
        if case .handshakeFailed(let reason) = error, "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
            return (
                .serverCertificateUntrusted,
                "the server's certificate is not trusted (no trusted root or pinned "
                    + "certificate matches): \(reason)"
            )
        }
        return (.secureConnectionFailed, "the TLS handshake failed: \(error)")
    }
}
