import Foundation

/// A request as a `curl` command line a person can paste into a POSIX shell, with secrets redacted.
enum CURLCommand {
    /// The longest body written into a command; a longer one is left out (and said so), because a
    /// truncated body would make the command send something else.
    static let bodyLimit = 16 * 1024

    static func of(_ request: OutgoingRequest, redaction: Redaction) -> String {
        var words = ["curl"]
        switch request.method {
        case .get: break
        case .head: words.append("--head")
        default: words += ["-X", quoted(request.method.rawValue)]
        }
        words.append(quoted(redaction.url(request.url)))
        for field in redaction.headers(request.headers) {
            words += ["-H", quoted("\(field.name): \(field.value)")]
        }
        var note: String?
        switch request.body {
        case .data(let data) where !data.isEmpty:
            if data.count > bodyLimit {
                note = "# body of \(data.count) bytes left out"
            } else if let text = redaction.bodyText(data, contentType: request.headers["Content-Type"]) {
                words += ["--data-binary", quoted(text)]
            } else {
                note = "# body of \(data.count) bytes left out (neither JSON nor a form, so it cannot be redacted)"
            }
        case .file(let file):
            words += ["--data-binary", quoted("@" + file.path)]
        default:
            break
        }
        return words.joined(separator: " ") + (note.map { " " + $0 } ?? "")
    }

    /// `text` in single quotes, where the shell takes every character literally; a single quote
    /// inside ends the quoting, adds an escaped quote and starts it again.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
