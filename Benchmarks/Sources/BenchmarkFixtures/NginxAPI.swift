import EndpointRouter
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The end-to-end endpoints, served by the benchmark nginx (`nginx.sh`) from its fixture files, on
/// `URLSessionTransport.shared` (named, not the platform's default: on Linux the default is
/// `CurlTransport`, measured through ``NginxOnCurl``).
public enum NginxAPI: HTTPClient {
    /// `/small.json`: one ``Todo``, about 200 bytes.
    case small
    /// `/list100.json`: 100 todos, about 10 KB.
    case list100
    /// `/list5000.json`: 5,000 todos, about 500 KB.
    case list5000
    /// POST `/todos` with a 60-byte JSON body; nginx answers 201 with a ``Todo``.
    case create
    /// `/big.bin`: 100 MB, for the download benchmark.
    case big

    public var host: String { benchmarkBaseURL }
    public var endpoint: String { NginxAPI.paths[self] }
    public var method: RequestMethod { self == .create ? .post : .get }
    public var body: EndpointBody? { self == .create ? .json(NewTodo()) : nil }
    public var transport: any HTTPTransport { URLSessionTransport.shared }

    /// The path of each endpoint, shared with the raw URLSession baseline.
    public static let paths = Paths()

    /// Paths of the fixtures, by endpoint.
    public struct Paths: Sendable {
        public subscript(_ endpoint: NginxAPI) -> String {
            switch endpoint {
            case .small: "small.json"
            case .list100: "list100.json"
            case .list5000: "list5000.json"
            case .create: "todos"
            case .big: "big.bin"
            }
        }
    }
}

/// ``NginxAPI``'s endpoints on `CurlTransport` (one of its own, default configuration): the same
/// requests, the other transport.
public enum NginxOnCurl: HTTPClient {
    case small, list100, list5000, create, big

    private var mirrored: NginxAPI {
        switch self {
        case .small: .small
        case .list100: .list100
        case .list5000: .list5000
        case .create: .create
        case .big: .big
        }
    }

    public var host: String { mirrored.host }
    public var endpoint: String { mirrored.endpoint }
    public var method: RequestMethod { mirrored.method }
    public var body: EndpointBody? { mirrored.body }
    public var transport: any HTTPTransport { benchmarkCurlTransport }
}

/// The `CurlTransport` of the benchmarks; a machine without libcurl ends the benchmark loudly
/// rather than measuring another transport under its name. `BENCH_CURL_LOOPS` sets its
/// `loopCount` (issue 41: one loop against several), the default otherwise; `BENCH_CA_FILE` its
/// trusted CA (the TLS benchmarks), `BENCH_CURL_CONNECTIONS` its connections per host (diagnosis),
/// `BENCH_CURL_IDLE_SPIN_US` its `idleSpin` in microseconds (`instructions` sets 0: under valgrind
/// a spin's instructions measure how long valgrind took to post the next call, not work).
public let benchmarkCurlTransport: CurlTransport = {
    var configuration = CurlTransport.Configuration()
    if let loops = ProcessInfo.processInfo.environment["BENCH_CURL_LOOPS"].flatMap(Int.init) { configuration.loopCount = loops }
    if let connections = ProcessInfo.processInfo.environment["BENCH_CURL_CONNECTIONS"].flatMap(Int.init) {
        configuration.maximumConnectionsPerHost = connections
    }
    if let spin = ProcessInfo.processInfo.environment["BENCH_CURL_IDLE_SPIN_US"].flatMap(Int.init) {
        configuration.idleSpin = .microseconds(spin)
    }
    configuration.certificateAuthorityFile = benchmarkCAFile
    do {
        return try CurlTransport(configuration: configuration)
    } catch {
        FileHandle.standardError.write(Data("CurlTransport is not available: \(error)\n".utf8))
        exit(1)
    }
}()

/// The baseline of the end-to-end benchmarks: `URLSession.shared.data(for:)` and one shared
/// `JSONDecoder`, as the performance anchors measured it.
public enum RawURLSession {
    static let decoder = JSONDecoder()
    static let encoder = JSONEncoder()

    /// GETs `endpoint`'s path and decodes `T`.
    public static func get<T: Decodable>(_ endpoint: NginxAPI, as type: T.Type) async throws -> T {
        guard let url = URL(string: "\(benchmarkBaseURL)/\(NginxAPI.paths[endpoint])") else { throw URLError(.badURL) }
        let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url))
        try check(response, expecting: 200)
        return try decoder.decode(T.self, from: data)
    }

    /// POSTs the 60-byte JSON body to `/todos` and decodes the created ``Todo``.
    public static func create() async throws -> Todo {
        guard let url = URL(string: "\(benchmarkBaseURL)/todos") else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try encoder.encode(NewTodo())
        let (data, response) = try await URLSession.shared.data(for: request)
        try check(response, expecting: 201)
        return try decoder.decode(Todo.self, from: data)
    }

    /// Downloads `/big.bin` with a download task and moves it to `destination`.
    public static func download(to destination: URL) async throws {
        guard let url = URL(string: "\(benchmarkBaseURL)/big.bin") else { throw URLError(.badURL) }
        let (temporary, response) = try await URLSession.shared.download(for: URLRequest(url: url))
        try check(response, expecting: 200)
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: temporary, to: destination)
    }

    private static func check(_ response: URLResponse, expecting status: Int) throws {
        guard (response as? HTTPURLResponse)?.statusCode == status else { throw URLError(.badServerResponse) }
    }
}

/// Fails a benchmark loudly when a request did not succeed: a benchmark of failures measures nothing.
public func expectSuccess<T>(_ result: Result<T, HTTPClientError>, _ what: String) -> T {
    switch result {
    case .success(let value):
        return value
    case .failure(let error):
        FileHandle.standardError.write(Data("benchmark request \(what) failed: \(error)\n".utf8))
        exit(1)
    }
}

/// Runs a baseline request, ending the benchmark loudly if it throws.
public func expectSuccess<T>(_ what: String, _ request: () async throws -> T) async -> T {
    do {
        return try await request()
    } catch {
        FileHandle.standardError.write(Data("baseline request \(what) failed: \(error)\n".utf8))
        exit(1)
    }
}
