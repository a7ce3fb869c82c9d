import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

/// A request whose method is not idempotent is written to the network at most once per library
/// attempt, on every live transport (RFC 9110 §9.2.2): a payment sent twice is the costliest bug an
/// HTTP client can have. The trap is a warm connection: a GET leaves a kept-alive connection, then the
/// server reads the POST and closes (or resets) that connection without answering. An engine that
/// re-sends on a dead reused connection (libcurl under corelibs' URLSession did) delivers the POST
/// twice and answers the caller with the second response.
///
/// Each case counts what the server received: exactly one POST, PATCH or POST with a file body —
/// or with no body, an empty one, an empty form or an empty file — when
/// the endpoint did not opt in, and the caller gets a `.transport` error the retry rules can act on;
/// with ``EndpointOptions/retryable`` set and a `RetryMiddleware`, the library sends it again, and the
/// server and `CallMetricsMiddleware` both count two attempts.
///
/// This file is shared with Transports/AsyncHTTPClient by symbolic link, like the other conformance
/// suites; in `Serialized` there (a parent of its own) and here, it runs in CI's step for figures
/// alone: it keeps connections warm, and a neighbour's transfer on the same URLSession work queue
/// would change which connection a request is given.
extension Serialized {
    @Suite("Single send: a non-idempotent request on a dead reused connection", .serialized)
    struct SingleSendConformanceTests {
        enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case close, reset
            var testDescription: String { rawValue }
        }

        enum Shape: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case post, patch, postWithFileBody
            /// Empty bodies: not `nil`, so a rule keyed on "has a body" misses them, and with 0 bytes
            /// to rewind an engine re-sends them freely (libcurl did).
            case postWithoutBody, postWithEmptyData, patchWithEmptyForm, postWithEmptyFile
            var testDescription: String { rawValue }
        }

        struct Endpoint: HTTPClient, Sendable {
            var host: String
            var endpoint: String
            var method: RequestMethod = .get
            var body: EndpointBody?
            var timeout: TimeInterval? = 15
            var transport: any HTTPTransport
            var options = EndpointOptions()
            var middlewares: [any HTTPMiddleware] = []
        }

        /// A server that answers `/warm` and `/answered`, and meets the first request to `/once` with
        /// `fault` (every later one is answered), counting what it received per path.
        static func server(fault: Fault) throws -> TestServer {
            let faulted = Locked(false)
            return try TestServer { request in
                let path = String(request.target.prefix { $0 != "?" })
                guard path == "/once" else { return .json(#"{"ok":true}"#) }
                let first = faulted.withLock { done -> Bool in
                    defer { done = true }
                    return !done
                }
                guard first else { return .json(#"{"second":true}"#) }
                return fault == .close ? .closeWithoutResponse : .resetWithoutResponse
            }
        }

        static func endpoint(_ shape: Shape, host: String, transport: any HTTPTransport, scratch: URL) throws -> Endpoint {
            var endpoint = Endpoint(host: host, endpoint: "once", transport: transport)
            switch shape {
            case .post:
                endpoint.method = .post
                endpoint.body = .json(["amount": 100])
            case .patch:
                endpoint.method = .patch
                endpoint.body = .json(["state": "paid"])
            case .postWithFileBody:
                endpoint.method = .post
                let file = scratch.appendingPathComponent("payment.json")
                try Data(#"{"amount":100}"#.utf8).write(to: file)
                endpoint.body = .file(file, contentType: "application/json")
            case .postWithoutBody:
                endpoint.method = .post
            case .postWithEmptyData:
                endpoint.method = .post
                endpoint.body = .data(Data(), contentType: "application/octet-stream")
            case .patchWithEmptyForm:
                endpoint.method = .patch
                endpoint.body = .form([:])
            case .postWithEmptyFile:
                endpoint.method = .post
                let file = scratch.appendingPathComponent("empty.bin")
                try Data().write(to: file)
                endpoint.body = .file(file, contentType: "application/octet-stream")
            }
            return endpoint
        }

        /// For each fault: a server, a live transport of `kind` with a connection to it kept warm by a
        /// GET, and a scratch folder, all gone when `body` returns.
        static func withWarmTransport(
            _ kind: TransportUnderTest, _ body: (Fault, TestServer, any HTTPTransport, URL) async throws -> Void
        ) async throws {
            guard case .live(let make) = kind.engine else { throw NotLive(name: kind.name) }
            for fault in Fault.allCases {
                let server = try Self.server(fault: fault)
                defer { server.stop() }
                let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("single-send-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: scratch) }
                let transport = make(scratch)
                let warm = await Endpoint(host: server.baseURL, endpoint: "warm", transport: transport).request(type: Data.self)
                #expect((try? warm.get()) != nil, "the warming GET failed: \(warm)")
                try await body(fault, server, transport, scratch)
            }
        }

        /// `liveOnly` lists only live transports; this says so if that ever changes.
        struct NotLive: Error { let name: String }

        @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly, Shape.allCases)
        func aNonIdempotentRequestReachesTheServerOnce(_ kind: TransportUnderTest, _ shape: Shape) async throws {
            try await Self.withWarmTransport(kind) { fault, server, transport, scratch in
                let result = try await Self.endpoint(shape, host: server.baseURL, transport: transport, scratch: scratch)
                    .request(type: Data.self)
                let sent = server.requests.filter { $0.target == "/once" }.count
                #expect(sent == 1, "[\(kind.name)] \(shape) met with a \(fault): the server received it \(sent) times")
                guard case .failure(.transport(let error)) = result else {
                    Issue.record("[\(kind.name)] \(shape) met with a \(fault): expected a .transport error, got \(result)")
                    return
                }
                #expect(
                    [.networkConnectionLost, .cannotConnectToHost, .badServerResponse, .unknown].contains(error.code),
                    "[\(kind.name)] \(shape) met with a \(fault): \(error.code)")
            }
        }

        @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly, Shape.allCases)
        func anEndpointThatOptsInIsRetriedByTheLibraryAndCountedTwice(_ kind: TransportUnderTest, _ shape: Shape) async throws {
            try await Self.withWarmTransport(kind) { fault, server, transport, scratch in
                let reports = Locked<[CallMetrics]>([])
                var endpoint = try Self.endpoint(shape, host: server.baseURL, transport: transport, scratch: scratch)
                endpoint.options.retryable = true
                endpoint.middlewares = [
                    CallMetricsMiddleware { metrics in reports.withLock { $0.append(metrics) } },
                    RetryMiddleware(policy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10))),
                ]
                let result = await endpoint.request(type: Data.self)
                #expect((try? result.get()) == Data(#"{"second":true}"#.utf8), "[\(kind.name)] \(shape), \(fault): \(result)")
                let sent = server.requests.filter { $0.target == "/once" }.count
                #expect(sent == 2, "[\(kind.name)] \(shape) met with a \(fault): the server received it \(sent) times")
                #expect(reports.withLock { $0.map(\.attempts) } == [2], "[\(kind.name)] \(shape), \(fault)")
            }
        }
    }
}
