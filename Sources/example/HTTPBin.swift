import EndpointRouter
import Foundation

/// httpbin (https://httpbin.org), a service that echoes what it receives: it serves the scenarios
/// JSONPlaceholder cannot (it ignores headers, does not read multipart bodies, has no images or
/// files). Set `HTTPBIN_URL` to use another instance, such as a local one.
enum HTTPBin: HTTPClient {
    /// Answers `{"headers": {...}}`: the headers as the server received them.
    case headers
    /// Answers `{"form": {...}, "files": {...}}`: the text fields and the files it read.
    case upload(MultipartFormData)
    /// Sends a file as the whole body, streamed from disk; answers `{"data": ...}`.
    case uploadFile(URL)
    /// A PNG image, as raw bytes.
    case png
    /// `count` pseudo-random bytes (the same ones for the same `seed`), sent with a `Content-Length`.
    case bytes(count: Int, seed: Int)
    /// `count` JSON objects, one per line (newline-delimited JSON), each with its `id` from 0.
    case stream(count: Int)

    var host: String { Settings.httpbin }

    var endpoint: String {
        switch self {
        case .headers: "headers"
        case .upload, .uploadFile: "post"
        case .png: "image/png"
        case .bytes(let count, _): "bytes/\(segment: count)"
        case .stream(let count): "stream/\(segment: count)"
        }
    }

    var method: RequestMethod {
        switch self {
        case .upload, .uploadFile: .post
        case .headers, .png, .bytes, .stream: .get
        }
    }

    var parameters: [String: Any]? {
        if case .bytes(_, let seed) = self { ["seed": seed] } else { nil }
    }

    /// Sent with every call of this service; the logs show it as `<redacted>`.
    var headers: [String: String]? {
        switch self {
        case .headers: ["Authorization": "Bearer example-token-not-a-secret"]
        case .png: ["Accept": "image/png"]
        default: nil
        }
    }

    var body: EndpointBody? {
        switch self {
        case .upload(let form): .multipart(form)
        case .uploadFile(let file): .file(file, contentType: "application/octet-stream")
        case .headers, .png, .bytes, .stream: nil
        }
    }

    var timeout: TimeInterval? { 15 }
}

/// One line of httpbin's `GET /stream/:count`: the request echoed, numbered.
struct StreamedLine: Codable, Sendable {
    var id: Int
    var url: String
}

/// What httpbin's `POST /post` echoes of a body: a raw body in `data`, a multipart body's text
/// fields in `form` and its files in `files`. Bytes that are not UTF-8 text come back as a data URL
/// (`data:image/png;base64,…`). The offline server answers with the same type.
struct UploadEcho: Codable, Sendable {
    var data: String = ""
    var form: [String: String] = [:]
    var files: [String: String] = [:]

    /// `bytes` as httpbin writes them in its echo: as text when they are UTF-8, as a data URL otherwise.
    static func text(of bytes: Data, contentType: String?) -> String {
        String(data: bytes, encoding: .utf8)
            ?? "data:\(contentType ?? "application/octet-stream");base64,\(bytes.base64EncodedString())"
    }

    /// How many bytes an echoed `text` stands for.
    static func byteCount(of text: String) -> Int? {
        guard text.hasPrefix("data:"), let comma = text.firstIndex(of: ",") else { return text.utf8.count }
        return Data(base64Encoded: String(text[text.index(after: comma)...]))?.count
    }
}
