#if os(Linux)
    internal import CLibcurl

    /// libcurl as loaded at run time from `libcurl.so.4` (which FoundationNetworking already needs), and
    /// the few of its constants the library uses, restated here because no curl header is compiled in.
    enum Libcurl {
        /// Whether libcurl loaded, with its version text, or why not.
        static let availability: CurlTransport.Availability = load(path: nil)

        /// Loads libcurl from `path` (`nil`: `libcurl.so.4`) for use; only the first load counts.
        private static func load(path: String?) -> CurlTransport.Availability {
            var reason = [CChar](repeating: 0, count: 512)
            let loaded = reason.withUnsafeMutableBufferPointer { libcurl_load(path, $0.baseAddress, $0.count) }
            guard loaded == 0 else {
                return .unavailable(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            return .available(version: String(cString: libcurl_version()))
        }

        /// Why `path` cannot serve as libcurl (missing, or lacking a function), or `nil` when it can.
        static func problem(loading path: String) -> String? {
            var reason = [CChar](repeating: 0, count: 512)
            let probed = reason.withUnsafeMutableBufferPointer { libcurl_probe(path, $0.baseAddress, $0.count) }
            guard probed != 0 else { return nil }
            return String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// `CURLOPT_*`: the type base (0 long, 10000 pointer, 20000 function, 30000 64-bit offset) plus a number.
    enum CurlOption {
        static let writeData: Int32 = 10001
        static let url: Int32 = 10002
        static let proxy: Int32 = 10004
        static let readData: Int32 = 10009
        static let errorBuffer: Int32 = 10010
        static let writeFunction: Int32 = 20011
        static let readFunction: Int32 = 20012
        static let httpHeader: Int32 = 10023
        static let sslCert: Int32 = 10025
        static let keyPassword: Int32 = 10026
        static let headerData: Int32 = 10029
        static let sslVersion: Int32 = 32
        static let customRequest: Int32 = 10036
        static let noProgress: Int32 = 43
        static let noBody: Int32 = 44
        static let post: Int32 = 47
        static let followLocation: Int32 = 52
        static let xferInfoData: Int32 = 10057
        static let caInfo: Int32 = 10065
        static let freshConnect: Int32 = 74
        static let headerFunction: Int32 = 20079
        static let sslKey: Int32 = 10087
        static let caPath: Int32 = 10097
        static let noSignal: Int32 = 99
        static let acceptEncoding: Int32 = 10102
        static let timeoutMilliseconds: Int32 = 155
        static let noProxy: Int32 = 10177
        /// A bitmask (`CURLPROTO_*`); deprecated in 7.85 for ``protocolsText``, which 7.68 lacks.
        static let protocols: Int32 = 181
        static let xferInfoFunction: Int32 = 20219
        static let pinnedPublicKey: Int32 = 10230
        static let pathAsIs: Int32 = 234
        static let proxyCAInfo: Int32 = 10246
        static let proxyCAPath: Int32 = 10247
        static let proxySSLVersion: Int32 = 250
        static let suppressConnectHeaders: Int32 = 265
        /// Since 7.62; an older libcurl refuses it, and the transfer keeps the default (64 KB).
        static let uploadBufferSize: Int32 = 280
        static let protocolsText: Int32 = 10318
        static let postFieldSizeLarge: Int32 = 30120
    }

    /// `CURLINFO_*`: the type base (0x200000 long) plus a number.
    enum CurlInfo {
        /// The status of the proxy's answer to `CONNECT`; 0 when there was no tunnel.
        static let httpConnectCode: Int32 = 0x20_0000 + 22
        /// The HTTP version the transfer used (``CurlHTTPVersion``); 0 when none was (7.50 and later).
        static let httpVersion: Int32 = 0x20_0000 + 46
    }

    /// `CURL_HTTP_VERSION_*`, as ``CurlInfo/httpVersion`` reports them.
    enum CurlHTTPVersion {
        static let http2 = 3
        static let http3 = 30
    }

    /// `CURLPROTO_*`, for ``CurlOption/protocols``.
    enum CurlProtocol {
        static let http = 1 << 0
        static let https = 1 << 1
    }

    /// `CURLMOPT_*`.
    enum CurlMultiOption {
        static let maxHostConnections: Int32 = 7
    }

    /// The values callbacks return and `curl_easy_pause` takes.
    enum CurlControl {
        /// From a write callback: keep this piece and pause receiving (`CURL_WRITEFUNC_PAUSE`).
        static let writePause = 0x1000_0001
        /// From a read callback: fail the transfer (`CURL_READFUNC_ABORT`).
        static let readAbort = 0x1000_0000
        /// `curl_easy_pause`: run again in both directions (`CURLPAUSE_CONT`).
        static let pauseContinue: Int32 = 0
    }

    /// `CURLE_*`: the results the library tells apart.
    enum CurlCode {
        static let ok: Int32 = 0
        static let unsupportedProtocol: Int32 = 1
        static let malformedURL: Int32 = 3
        static let couldNotResolveProxy: Int32 = 5
        static let couldNotResolveHost: Int32 = 6
        static let couldNotConnect: Int32 = 7
        static let weirdServerReply: Int32 = 8
        static let http2: Int32 = 16
        static let partialFile: Int32 = 18
        static let writeError: Int32 = 23
        static let outOfMemory: Int32 = 27
        static let readError: Int32 = 26
        static let timedOut: Int32 = 28
        static let sslConnect: Int32 = 35
        static let abortedByCallback: Int32 = 42
        static let gotNothing: Int32 = 52
        static let sendError: Int32 = 55
        static let receiveError: Int32 = 56
        static let certificateProblem: Int32 = 58
        static let peerFailedVerification: Int32 = 60
        static let badContentEncoding: Int32 = 61
        static let sendFailRewind: Int32 = 65
        static let caCertificateBadFile: Int32 = 77
        static let pinnedKeyMismatch: Int32 = 90
        static let proxyHandshake: Int32 = 97
        static let http2Stream: Int32 = 92
    }
#endif
