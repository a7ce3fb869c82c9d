// The download examples' service (after `models`).
enum FilesAPI: HTTPClient {
    case archive

    var host: String { "https://files.example.com" }
    var endpoint: String { "archive.zip" }
}

let documents = FileManager.default.temporaryDirectory
