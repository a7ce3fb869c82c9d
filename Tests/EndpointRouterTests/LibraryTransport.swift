import EndpointRouter

/// The library's own transports, for tests that hold every one of them to the same behaviour:
/// URLSession and, on Linux, the libcurl transport. Raw values name each in a test's arguments.
enum LibraryTransport: String, CaseIterable, Sendable {
    case urlSession
    #if os(Linux)
        case curl
    #endif

    func make() throws -> any HTTPTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        #if os(Linux)
            case .curl: try CurlTransport()
        #endif
        }
    }
}
