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
    /// A PNG image, as raw bytes.
    case png
    /// `count` pseudo-random bytes (the same ones for the same `seed`), sent with a `Content-Length`.
    case bytes(count: Int, seed: Int)

    var host: String { Settings.httpbin }

    var endpoint: String {
        switch self {
        case .headers: "headers"
        case .upload: "post"
        case .png: "image/png"
        case .bytes(let count, _): "bytes/\(segment: count)"
        }
    }

    var method: HTTPMethod {
        if case .upload = self { .post } else { .get }
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

    var body: RequestBody? {
        if case .upload(let form) = self { .multipart(form) } else { nil }
    }

    var timeout: TimeInterval? { 15 }
}

/// What httpbin's `POST /post` echoes of a multipart body. A file comes back as a data URL
/// (`data:image/png;base64,…`), a text file as its text.
struct UploadEcho: Decodable, Sendable {
    let form: [String: String]
    let files: [String: String]

    /// The size of the file `name` as the server received it.
    func receivedBytes(ofFile name: String) -> Int? {
        guard let file = files[name] else { return nil }
        guard file.hasPrefix("data:"), let comma = file.firstIndex(of: ",") else { return file.utf8.count }
        return Data(base64Encoded: String(file[file.index(after: comma)...]))?.count
    }
}
