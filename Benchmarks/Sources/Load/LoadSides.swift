import AHCFixtures
import AsyncHTTPClient
import BenchmarkFixtures
import EndpointRouter
import Foundation
import NIOCore
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The clients compared. `library` is EndpointRouter with its defaults on Linux (`CurlTransport`,
/// one loop per core); the others are what a careful person writes without it.
enum LoadSide: String, CaseIterable {
    /// EndpointRouter, `NginxOnCurl` (`BENCH_CURL_LOOPS` sets the loop count, for diagnosis).
    case library
    /// The raw single-loop libcurl multi client of `RawLibcurl` and one `JSONDecoder`.
    case rawCurl = "raw-curl"
    /// The same raw client on libcurl's event API (`curl_multi_socket_action` over epoll): issue 41's
    /// measure of what that API would give the library's loops.
    case rawCurlEvents = "raw-curl-events"
    /// AsyncHTTPClient tuned as the acceptance harness did: an `HTTPClient` of its own on
    /// the shared event-loop group (one loop per core), 64 HTTP/1.1 connections per host.
    case ahcTuned = "ahc-tuned"
    /// `URLSession.shared` and one `JSONDecoder` (plain HTTP only: corelibs cannot be told to trust
    /// the benchmark's CA).
    case urlSession = "urlsession"

    /// One request of `scenario`, decoded, throwing unless it succeeded.
    func call(for scenario: LoadScenario) -> @Sendable () async throws -> Void {
        switch (self, scenario.request) {
        case (.library, .small): { _ = try await NginxOnCurl.small.request(type: Todo.self).get() }
        case (.library, .list100): { _ = try await NginxOnCurl.list100.request(type: [Todo].self).get() }
        case (.library, .post): { _ = try await NginxOnCurl.create.request(type: Todo.self).get() }
        case (.rawCurl, .small): { _ = try await RawCurlCalls.get(.small, as: Todo.self) }
        case (.rawCurl, .list100): { _ = try await RawCurlCalls.get(.list100, as: [Todo].self) }
        case (.rawCurl, .post): { _ = try await RawCurlCalls.create() }
        case (.rawCurlEvents, .small): { _ = try await RawCurlCalls.get(.small, as: Todo.self, on: .events) }
        case (.rawCurlEvents, .list100): { _ = try await RawCurlCalls.get(.list100, as: [Todo].self, on: .events) }
        case (.rawCurlEvents, .post): { _ = try await RawCurlCalls.create(on: .events) }
        case (.ahcTuned, .small): { _ = try await tunedAHC.get(.small, as: Todo.self) }
        case (.ahcTuned, .list100): { _ = try await tunedAHC.get(.list100, as: [Todo].self) }
        case (.ahcTuned, .post): { _ = try await tunedAHC.create() }
        case (.urlSession, .small): { _ = try await RawURLSession.get(.small, as: Todo.self) }
        case (.urlSession, .list100): { _ = try await RawURLSession.get(.list100, as: [Todo].self) }
        case (.urlSession, .post): { _ = try await RawURLSession.create() }
        }
    }
}

/// What is asked, and how many requests are in flight at once.
enum LoadScenario: String, CaseIterable {
    case seqSmall = "seq-small"
    case seqPost = "seq-post"
    case seqList100 = "seq-list100"
    case conc64Small = "conc64-small"
    case conc256Small = "conc256-small"
    /// One caller, a small GET about every 0.8 ms (a pause of 0.5 ms after each answer): calls too far
    /// apart for the loop's idle spin (100 µs) and close enough for its doze (up to ten spins), so
    /// its CPU per request shows what the doze costs. Not in the default scenarios.
    case pacedSmall = "paced-small"

    enum Request { case small, list100, post }

    var request: Request {
        switch self {
        case .seqSmall, .conc64Small, .conc256Small, .pacedSmall: .small
        case .seqPost: .post
        case .seqList100: .list100
        }
    }

    var inFlight: Int {
        switch self {
        case .seqSmall, .seqPost, .seqList100, .pacedSmall: 1
        case .conc64Small: 64
        case .conc256Small: 256
        }
    }

    /// How long each caller waits after an answer before its next call.
    var pause: Duration? { self == .pacedSmall ? .microseconds(500) : nil }
}

/// The tuned AsyncHTTPClient side: the hand-written calls of scenario 5 (status checked, body
/// collected, one shared `JSONDecoder`) on an `HTTPClient` of its own, on the shared event-loop
/// group (one loop per core), 64 HTTP/1.1 connections per host, trusting `BENCH_CA_FILE`.
let tunedAHC = RawAHCCalls(
    client: {
        var configuration = AsyncHTTPClient.HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        if let file = benchmarkCAFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(file)
            configuration.tlsConfiguration = tls
        }
        return AsyncHTTPClient.HTTPClient(eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }())
