import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One kind of transport the conformance tests run against, and how to make it answer a test's
/// scenarios without the scenarios knowing which kind it is:
///
/// - a `.live` transport (one that speaks HTTP) is pointed at an in-process `TestServer` on
///   127.0.0.1 scripted with the scenarios;
/// - a `.stub` gets one route per scenario;
/// - a `.replay` gets one recording per scenario, written by hand in the recording format.
///
/// The list of transports the tests run against, ``all``, is in `TransportUnderTest+All.swift`, the
/// one file a package reusing these tests provides for itself (the AsyncHTTPClient companion package
/// links this file and the tests, and lists `.live { _ in AsyncHTTPClientTransport() }` there).
struct TransportUnderTest: Sendable, CustomTestStringConvertible {
    enum Engine: Sendable {
        /// Makes a transport that talks to a real server; it gets a scratch folder of its own.
        case live(@Sendable (_ scratch: URL) -> any HTTPTransport)
        case stub
        case replay
    }

    let name: String
    let engine: Engine

    var testDescription: String { name }

    static let urlSession = TransportUnderTest(name: "URLSessionTransport", engine: .live { _ in URLSessionTransport() })
    /// libcurl driven directly, Linux's default; a machine without a usable libcurl gets a transport
    /// that fails every call with the reason, so the tests say why instead of passing unseen.
    static let curl = TransportUnderTest(
        name: "CurlTransport",
        engine: .live { _ in
            do throws(HTTPClientError) {
                return try CurlTransport()
            } catch {
                return UnusableTransport(error: error)
            }
        })
    static let stub = TransportUnderTest(name: "StubTransport", engine: .stub)
    static let replay = TransportUnderTest(name: "ReplayTransport", engine: .replay)
    static let recording = TransportUnderTest(
        name: "RecordingTransport(URLSessionTransport)",
        engine: .live { scratch in
            RecordingTransport(wrapping: URLSessionTransport(), directory: scratch.appendingPathComponent("recordings"))
        })

    /// Whether it can keep an answer back for as long as a test likes (a server that never answers).
    /// A recording is answered as soon as it is read, so replay cannot.
    var canHoldAnAnswerBack: Bool {
        if case .replay = engine { false } else { true }
    }

    /// Fails every call with the error that kept a transport from being made.
    struct UnusableTransport: HTTPTransport {
        let error: HTTPClientError

        func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
            -> ResponseHead
        {
            throw error
        }
    }

    // MARK: What a scenario is

    /// One exchange a transport must carry: the request the test sends and what the other end answers.
    struct Scenario: Sendable {
        enum Body: Sendable {
            case bytes(Data)
            /// `count` bytes of the test server's pattern (`ScriptedResponse.patternByte(at:)`).
            case pattern(count: Int)
            /// The pattern without end: a server streams it forever; a stub or a recording, which must
            /// hold a body whole, serves ``endlessStandIn`` bytes, which a test reading at its own pace
            /// does not reach before it stops.
            case endless
        }

        enum Answer: Sendable {
            case respond(status: Int, headers: HeaderFields, body: Body)
            /// Nothing at all, not even a status line.
            case never
        }

        var method: RequestMethod = .get
        /// The path and query, such as `/items?q=a%20b`. Paths must differ between the scenarios of a test.
        var target: String
        var requestHeaders: HeaderFields = [:]
        var requestBody: Data?
        var answer: Answer

        var path: String { String(target.prefix { $0 != "?" }) }

        static let endlessStandIn = 16 * 1024 * 1024
    }

    // MARK: Serving scenarios

    /// A transport set up to answer one test's scenarios.
    struct Served: Sendable {
        let transport: any HTTPTransport
        /// `scheme://host:port`, without a trailing slash.
        let baseURL: String
        /// What reached the other end: the server's view for a live transport, the transport's own
        /// log of received requests for a stub or a replay.
        let requestsSeen: @Sendable () -> [SeenRequest]

        func request(for scenario: Scenario) throws -> OutgoingRequest {
            try TransportUnderTest.request(for: scenario, baseURL: baseURL)
        }
    }

    /// A request as the other end saw it.
    struct SeenRequest: Sendable {
        var method: String
        /// The path and query as sent, still percent-encoded.
        var target: String
        var headers: HeaderFields
        var body: Data

        init(_ recorded: RecordedRequest) {
            method = recorded.method
            target = recorded.target
            headers = HeaderFields(recorded.headers.map { HeaderFields.Field(name: $0.name, value: $0.value) })
            body = recorded.body
        }

        init(_ captured: CapturedRequest) {
            method = captured.method.rawValue
            let query = URLComponents(url: captured.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
            target = captured.path + (query.map { "?" + $0 } ?? "")
            headers = captured.headers
            body = captured.body
        }
    }

    /// Sets this transport up to answer `scenarios`, runs `body` with it, and takes it down again
    /// (the server stops, the scratch folder goes).
    func withServed(
        _ scenarios: [Scenario],
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Served) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { scratch in
            switch engine {
            case .live(let make):
                let server = try TestServer { request in
                    Self.scripted(scenarios.first { $0.path == request.path })
                }
                defer { server.stop() }
                try await Self.usingRecordingsDone(make(scratch)) { transport in
                    try await body(
                        Served(transport: transport, baseURL: server.baseURL, requestsSeen: { server.requests.map(SeenRequest.init) }))
                }

            case .stub:
                let stub = StubTransport()
                for scenario in scenarios {
                    stub.on(nil, scenario.path, respond: Self.stubbed(scenario))
                }
                try await body(
                    Served(
                        transport: stub, baseURL: Self.offlineBaseURL,
                        requestsSeen: { stub.capturedRequests.map(SeenRequest.init) }))

            case .replay:
                let recordings = scratch.appendingPathComponent("recordings")
                try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
                try Self.writeRecordings(of: scenarios, in: recordings)
                let replay = ReplayTransport(directory: recordings)
                try await body(
                    Served(
                        transport: replay, baseURL: Self.offlineBaseURL,
                        requestsSeen: { replay.capturedRequests.map(SeenRequest.init) }))
            }
        }
    }

    /// Runs `body` with `transport`, then, whether it threw or not, waits for a recorder's late
    /// recordings: a stream its consumer left is recorded as its exchange winds down, after the body,
    /// and written after the scratch folder went it would make the folder again and leave it behind.
    /// Bounded, so that an exchange that never ends fails its own test instead of hanging this one.
    static func usingRecordingsDone(
        _ transport: any HTTPTransport,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (any HTTPTransport) async throws -> Void
    ) async throws {
        let outcome: Result<Void, any Error>
        do {
            try await body(transport)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        if let recorder = transport as? RecordingTransport {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await recorder.waitForRecordings() }
                group.addTask { try? await Task.sleep(for: .seconds(5)) }
                await group.next()
                group.cancelAll()
            }
        }
        try outcome.get()
    }

    /// Where stubs and replays are addressed; neither resolves it.
    private static let offlineBaseURL = "https://transport-under-test.invalid"

    private static func request(for scenario: Scenario, baseURL: String) throws -> OutgoingRequest {
        guard let url = URL(string: baseURL + scenario.target) else { throw TestFailure("not a URL: \(baseURL)\(scenario.target)") }
        return OutgoingRequest(
            method: scenario.method, url: url, headers: scenario.requestHeaders,
            body: scenario.requestBody.map { .data($0) })
    }

    private static func bytes(of body: Scenario.Body) -> Data {
        switch body {
        case .bytes(let data): data
        case .pattern(let count): ScriptedResponse.patternData(count: count)
        case .endless: ScriptedResponse.patternData(count: Scenario.endlessStandIn)
        }
    }

    private static func scripted(_ scenario: Scenario?) -> ScriptedResponse {
        guard let scenario else { return .status(404, body: "this test has no scenario for that path") }
        switch scenario.answer {
        case .never:
            return .hang
        case .respond(let status, let headers, let body):
            let fields = headers.fields.map { (name: $0.name, value: $0.value) }
            switch body {
            case .bytes(let data):
                return .status(status, headers: fields, body: data)
            case .pattern(let count):
                return .stream(status: status, headers: fields, total: Int64(count), announceLength: true)
            case .endless:
                return .stream(status: status, headers: fields, chunk: 16 * 1024, interval: 0.005)
            }
        }
    }

    private static func stubbed(_ scenario: Scenario) -> StubResponse {
        switch scenario.answer {
        case .never:
            // Longer than any test; the stub gives up at the context's deadline or on cancellation.
            return StubResponse.status(200).delayed(by: 3600)
        case .respond(let status, let headers, let body):
            return .data(bytes(of: body), status: status, headers: headers.dictionary)
        }
    }

    /// One file per scenario, named as `RecordingTransport` names it, in the documented format: the
    /// request (for readers), `### response`, the status line and headers, a blank line, and the body
    /// as is when it is UTF-8 text, otherwise as base64 after a `[base64]` line.
    private static func writeRecordings(of scenarios: [Scenario], in directory: URL) throws {
        let namer = RecordingTransport(wrapping: ReplayTransport(directory: directory), directory: directory)
        for scenario in scenarios {
            guard case .respond(let status, let headers, let body) = scenario.answer else {
                throw TestFailure("a recording cannot hold its answer back; \(scenario.target) cannot be replayed")
            }
            let request = try request(for: scenario, baseURL: offlineBaseURL)
            var text = "\(request.method.rawValue) \(request.url.absoluteString) HTTP/1.1\n"
            text += request.headers.fields.map { "\($0.name): \($0.value)\n" }.joined()
            text += "\n"
            if let sent = request.bodyData, !sent.isEmpty { text += "<request body of \(sent.count) bytes, not shown>\n" }
            text += "### response\nHTTP/1.1 \(status)\n"
            text += headers.fields.map { "\($0.name): \($0.value)\n" }.joined()
            text += "\n"
            var file = Data(text.utf8)
            let content = bytes(of: body)
            if let plain = String(data: content, encoding: .utf8), !plain.hasPrefix("[base64]\n") {
                file.append(content)
            } else {
                file.append(Data("[base64]\n".utf8))
                file.append(Data(content.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]).utf8))
                file.append(Data("\n".utf8))
            }
            try file.write(to: directory.appendingPathComponent(namer.fileName(for: request)))
        }
    }
}
