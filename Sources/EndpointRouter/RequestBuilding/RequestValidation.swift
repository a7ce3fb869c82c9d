import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The checks a request passes before anything is sent.
///
/// URLSession on Linux writes header names and methods to the wire unchecked (header injection),
/// silently drops values with line breaks, and lets a caller's `Content-Length` frame the body (request
/// smuggling). These checks turn each of those into a typed error instead.
enum RequestValidation {
    /// Headers the transport computes itself; a caller's value could desynchronise the connection.
    static let reservedHeaders: Set<String> = ["content-length", "transfer-encoding", "host", "connection"]

    /// RFC 9110 `token`: the only characters allowed in a header name or a method.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// Checks one header; the message names the header and says what to change.
    static func validateHeader(name: String, value: String) throws(HTTPClientError) {
        guard isToken(name) else {
            throw .invalidHeader("header name '\(printable(name))' is not a valid token; use letters, digits and !#$%&'*+-.^_`|~ only")
        }
        guard !reservedHeaders.contains(name.lowercased()) else {
            throw .invalidHeader("header '\(name)' is set by the transport from the body and URL; remove it from the request")
        }
        for byte in value.utf8 {
            switch byte {
            case 0x0D, 0x0A:
                throw .invalidHeader("header value for '\(name)' contains a line break; remove CR/LF")
            case 0x00:
                throw .invalidHeader("header value for '\(name)' contains a NUL byte; remove it")
            case 0x01...0x08, 0x0B...0x1F, 0x7F:
                throw .invalidHeader("header value for '\(name)' contains control character 0x\(String(byte, radix: 16)); remove it")
            default:
                continue
            }
        }
    }

    /// Checks a whole `URLRequest` as it is about to be handed to a transport.
    static func validate(_ request: URLRequest) throws(HTTPClientError) {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false else {
            throw .badURL("'\(request.url?.absoluteString ?? "nil")' is not an http or https URL")
        }
        let method = request.httpMethod ?? "GET"
        guard isToken(method) else {
            throw .encodingFailed("the method '\(printable(method))' is not a valid token; use a standard method such as GET or POST")
        }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            try validateHeader(name: name, value: value)
        }
        if let body = request.httpBody, !body.isEmpty, method == "GET" || method == "HEAD" {
            throw .encodingFailed("""
                a \(method) request cannot carry a body; send the parameters in the query \
                (parameterEncoding .query) or use POST
                """)
        }
    }

    /// The text with control characters made visible, so an error message cannot itself inject lines.
    static func printable(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            switch scalar {
            case "\r": "\\r"
            case "\n": "\\n"
            case "\0": "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: "\\u{\(String(scalar.value, radix: 16))}"
            default: String(scalar)
            }
        }.joined()
    }
}
