import EndpointRouter
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The httpbin server under test, from `HTTPBIN_URL` (for example `http://127.0.0.1:8765`).
///
/// The suites only run when it is set; the fallback (the discard port) is never contacted.
enum HTTPBinServer {
    static let url: String? = ProcessInfo.processInfo.environment["HTTPBIN_URL"].map { url in
        var trimmed = url
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    static var base: String { url ?? "http://127.0.0.1:9" }

    /// The same server under another origin (another host name), for cross-origin redirects.
    static var otherOrigin: String? {
        guard let components = URLComponents(string: base), components.host == "127.0.0.1" else { return nil }
        var other = components
        other.host = "localhost"
        return other.string
    }
}

/// Every httpbin endpoint the suites use, as one `HTTPClient` service enum.
enum HTTPBin: HTTPClient {
    /// `/anything` with any method; parameters placed by `encoding`.
    case anything(RequestMethod, parameters: [String: Any]? = nil, encoding: ParameterEncoding = .automatic)
    /// The method routes `/get`, `/post`, `/put`, `/patch`, `/delete`, called with `method`.
    case methodRoute(route: String, method: RequestMethod)
    /// `/get` with query parameters.
    case get(parameters: [String: Any]?, style: QueryStyle = .default)
    /// A raw endpoint string (which may carry a query) plus parameters, sent as GET.
    case raw(endpoint: String, parameters: [String: Any]?)
    /// `HEAD /get`.
    case head
    /// `OPTIONS /get`.
    case options
    /// `POST /post` with `[String: Any]` parameters as JSON.
    case postJSON(parameters: [String: Any])
    /// `POST /post` with an explicit body; `parameters` then go to the query.
    case postBody(EndpointBody, parameters: [String: Any]? = nil)
    /// `POST /post` with `[String: Any]` parameters as a form body.
    case postForm(parameters: [String: Any])
    /// `/headers` with extra request headers.
    case headers([String: String]?)
    /// `/response-headers` echoing the query as response headers.
    case responseHeaders([String: String])
    /// `/status/N`, with the statuses that count as success.
    case status(Int, acceptable: Range<Int> = 200..<300)
    /// `/gzip`.
    case gzip
    /// `/delay/N` with a total deadline.
    case delay(seconds: Int, timeout: TimeInterval)
    /// `/redirect/N` (relative redirects ending at `/get`).
    case redirect(times: Int)
    /// `/redirect-to?url=…&status_code=…` with a method, body and headers.
    case redirectTo(
        url: String, statusCode: Int, method: RequestMethod, body: EndpointBody?,
        headers: [String: String]? = nil)
    /// `/absolute-redirect/N`.
    case absoluteRedirect(times: Int)
    /// `/basic-auth/user/password`, optionally with an `Authorization` header.
    case basicAuth(user: String, password: String, authorization: String?)
    /// `/bytes/N?seed=S`: N pseudo-random bytes, the same for the same seed.
    case bytes(count: Int, seed: Int)
    /// `/encoding/utf8`: an HTML page of UTF-8 text.
    case encodingUTF8
    /// `/json`: a fixed JSON document.
    case json
    /// `/html`: an HTML page.
    case html

    var host: String { HTTPBinServer.base }

    var endpoint: String {
        switch self {
        case .anything: "anything"
        case .methodRoute(let route, _): route
        case .get, .head, .options: "get"
        case .raw(let endpoint, _): endpoint
        case .postJSON, .postBody, .postForm: "post"
        case .headers: "headers"
        case .responseHeaders: "response-headers"
        case .status(let code, _): "status/\(segment: code)"
        case .gzip: "gzip"
        case .delay(let seconds, _): "delay/\(segment: seconds)"
        case .redirect(let times): "redirect/\(segment: times)"
        case .redirectTo: "redirect-to"
        case .absoluteRedirect(let times): "absolute-redirect/\(segment: times)"
        case .basicAuth(let user, let password, _): "basic-auth/\(segment: user)/\(segment: password)"
        case .bytes(let count, _): "bytes/\(segment: count)"
        case .encodingUTF8: "encoding/utf8"
        case .json: "json"
        case .html: "html"
        }
    }

    var method: RequestMethod {
        switch self {
        case .anything(let method, _, _), .methodRoute(_, let method), .redirectTo(_, _, let method, _, _): method
        case .head: .head
        case .options: .options
        case .postJSON, .postBody, .postForm: .post
        default: .get
        }
    }

    var parameters: [String: Any]? {
        switch self {
        case .anything(_, let parameters, _), .get(let parameters, _), .raw(_, let parameters),
            .postBody(_, let parameters):
            parameters
        case .postJSON(let parameters), .postForm(let parameters):
            parameters
        case .responseHeaders(let fields):
            fields
        case .redirectTo(let url, let statusCode, _, _, _):
            ["url": url, "status_code": statusCode]
        case .bytes(_, let seed):
            ["seed": seed]
        default:
            nil
        }
    }

    var parameterEncoding: ParameterEncoding {
        switch self {
        case .anything(_, _, let encoding): encoding
        case .postForm: .form
        case .redirectTo: .query
        default: .automatic
        }
    }

    var queryStyle: QueryStyle {
        if case .get(_, let style) = self { style } else { .default }
    }

    var body: EndpointBody? {
        switch self {
        case .postBody(let body, _), .redirectTo(_, _, _, let body?, _): body
        default: nil
        }
    }

    var headers: [String: String]? {
        switch self {
        case .headers(let fields), .redirectTo(_, _, _, _, let fields): fields
        case .basicAuth(_, _, let authorization?): ["Authorization": authorization]
        default: nil
        }
    }

    var timeout: TimeInterval? {
        switch self {
        case .delay(_, let timeout): timeout
        // Generous, but finite: a hang shows up as `.timedOut` rather than a stuck test run.
        default: 20
        }
    }

    var acceptableStatusCodes: Range<Int> {
        if case .status(_, let acceptable) = self { acceptable } else { 200..<300 }
    }
}

// MARK: - What httpbin answers

/// Any JSON value, to compare httpbin's echoes exactly.
enum JSON: Decodable, Equatable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSON].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    init(nilLiteral: ()) { self = .null }

    var description: String {
        switch self {
        case .string(let string): string.debugDescription
        case .number(let number): "\(number)"
        case .bool(let bool): "\(bool)"
        case .null: "null"
        case .array(let array): "[" + array.map(\.description).joined(separator: ", ") + "]"
        case .object(let object):
            "[" + object.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "]"
        }
    }
}

/// httpbin's echo of a request (`/get`, `/post`, `/anything`, ...); fields absent on an endpoint are `nil`.
struct Echo: Decodable, Sendable {
    let args: [String: JSON]
    let headers: [String: String]
    let url: String
    let method: String?
    let data: String?
    let form: [String: JSON]?
    let files: [String: JSON]?
    let json: JSON?
}

/// httpbin's echo of a JSON body decoded as a concrete type.
struct JSONEcho<Body: Decodable & Sendable>: Decodable, Sendable {
    let args: [String: JSON]
    let headers: [String: String]
    let json: Body
}

/// `/headers`.
struct HeadersEcho: Decodable, Sendable {
    let headers: [String: String]
}

/// `/gzip`.
struct GzipEcho: Decodable, Sendable {
    let gzipped: Bool
    let method: String
    let headers: [String: String]
}

/// `/basic-auth/…` when authenticated.
struct BasicAuthAnswer: Decodable, Sendable, Equatable {
    let authenticated: Bool
    let user: String
}

/// `/json`.
struct SlideshowDocument: Decodable, Sendable {
    struct Slideshow: Decodable, Sendable {
        struct Slide: Decodable, Sendable, Equatable {
            let title: String
            let type: String
            let items: [String]?
        }

        let author: String
        let date: String
        let title: String
        let slides: [Slide]
    }

    let slideshow: Slideshow
}

/// An Encodable body sent with `.json(…)`.
struct Parcel: Codable, Sendable, Equatable {
    struct Dimensions: Codable, Sendable, Equatable {
        let width: Double
        let height: Double
    }

    let title: String
    let count: Int
    let fragile: Bool
    let tags: [String]
    let note: String?
    let dimensions: Dimensions
}
