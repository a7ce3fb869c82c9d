import Foundation

/// What the command line chose; read once at start-up.
///
/// `--host` moves the JSONPlaceholder scenarios to another server (a staging copy, a local
/// `json-server`). The scenarios JSONPlaceholder cannot serve go to the public services that can:
/// httpbin (`HTTPBIN_URL`, the variable the package's httpbin tests read, or https://httpbin.org)
/// and the Stack Exchange API.
enum Settings {
    /// The host given with `--host`, read once at start-up: the pattern for a host chosen when the
    /// app starts (a `static let` is initialised once, thread-safely, and is fine in Swift 6 mode).
    static let host: String = parse(Array(CommandLine.arguments.dropFirst())) ?? "https://jsonplaceholder.typicode.com"
    static var isOnline: Bool { CommandLine.arguments.contains("--host") }

    /// The httpbin used online for headers, multipart, image and download scenarios.
    static let httpbin: String = {
        let configured = ProcessInfo.processInfo.environment["HTTPBIN_URL"] ?? ""
        return configured.isEmpty ? "https://httpbin.org" : configured
    }()

    /// `nil` without `--host`; exits with a usage message for anything else it cannot use, so a
    /// typo never silently sends the demo somewhere unintended.
    private static func parse(_ arguments: [String]) -> String? {
        guard !arguments.isEmpty else { return nil }
        if arguments == ["--host"] {
            refuse("--host needs a URL after it")
        }
        guard arguments.count == 2, arguments[0] == "--host" else {
            refuse("unexpected arguments \(arguments.joined(separator: " "))")
        }
        let value = arguments[1]
        guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            let host = url.host, !host.isEmpty
        else {
            refuse("--host needs an http(s) URL with a host, such as https://jsonplaceholder.typicode.com; got '\(value)'")
        }
        return value
    }

    private static func refuse(_ reason: String) -> Never {
        FileHandle.standardError.write(
            Data(
                """
                error: \(reason)
                usage: swift run example                        (offline, answers from Fixtures/)
                       swift run example --host https://jsonplaceholder.typicode.com

                """.utf8))
        exit(2)
    }
}
