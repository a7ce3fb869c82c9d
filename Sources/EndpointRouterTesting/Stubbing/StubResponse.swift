import EndpointRouter
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a ``StubTransport`` answers: a response with status, headers and body, or a failure, after
/// an optional simulated latency.
///
/// ```swift
/// stub.on(.get, "/todos/1", respond: .json(Todo(id: 1, title: "Write tests")))
///     .on(.get, "/todos", respond: .fixture("todos.json", in: fixtures))
///     .on(.delete, "/todos/:id", respond: .status(204))
///     .on(.get, "/slow", respond: .json(#"{"ok":true}"#).delayed(by: 0.5))
///     .on(.get, "/offline", respond: .urlError(.notConnectedToInternet))
/// ```
///
/// Any status is a response, as from a real server: whether a `404` is an error is for the endpoint's
/// `acceptableStatusCodes` to decide. The body reaches the library in pieces of 64 KiB, like a network
/// body, so the endpoint's `maxResponseSize`, `download(to:progress:)` and its progress work as in
/// production. The response carries exactly the headers given: add `Content-Length` to let download
/// progress know the total before the end. Each piece waits until the library has room for it, as a
/// pulling transport does, so a streaming call's slow consumer holds the stub back. For streams with
/// pauses, drops or no end, see ``stream(_:status:headers:)``, ``events(_:interval:status:headers:)``,
/// ``jsonLines(_:interval:status:headers:encoder:)`` and ``endless(interval:status:headers:_:)``.
public struct StubResponse: Sendable {
    enum Body: Sendable {
        case bytes(Data)
        /// Read when served, so a test sees edits to the file and a missing file fails one request.
        case fixture(name: String, directory: URL)
        /// Played piece by piece, with pauses and drops; see `StubStream.swift`.
        case stream(StubStream)
    }

    enum Outcome: Sendable {
        case respond(status: Int, headers: HeaderFields, body: Body)
        case fail(HTTPClientError)
    }

    let outcome: Outcome
    /// Seconds to wait before answering.
    let latency: TimeInterval

    init(_ outcome: Outcome, latency: TimeInterval = 0) {
        self.outcome = outcome
        self.latency = latency
    }

    /// Answers with raw bytes.
    ///
    /// ```swift
    /// stub.on(.get, "/logo.png", respond: .data(pngBytes, headers: ["Content-Type": "image/png"]))
    /// ```
    public static func data(_ data: Data, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(.respond(status: status, headers: HeaderFields(headers), body: .bytes(data)))
    }

    /// Answers with `value` encoded as JSON and `Content-Type: application/json` (unless `headers`
    /// sets one).
    ///
    /// ```swift
    /// stub.on(.get, "/todos", respond: .json([Todo(id: 1, title: "a"), Todo(id: 2, title: "b")]))
    ///     .on(.get, "/todos/99", respond: .json(APIError(message: "no such todo"), status: 404))
    /// ```
    ///
    /// A value the encoder rejects makes the request fail with `.encodingFailed` naming its type.
    public static func json(
        _ value: some Encodable & Sendable,
        status: Int = 200,
        headers: [String: String] = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) -> StubResponse {
        do {
            let data = try encoder.encode(value)
            return StubResponse(
                .respond(
                    status: status, headers: withContentType(headers, "application/json"),
                    body: .bytes(data)))
        } catch {
            return .failure(.encodingFailed("StubResponse.json could not encode \(type(of: value)): \(error)"))
        }
    }

    /// Answers with JSON written out as text, sent as is (not validated, so malformed JSON can be
    /// served on purpose).
    ///
    /// ```swift
    /// stub.on(.get, "/todos/1", respond: .json(#"{"userId": 1, "id": 1, "title": "a", "completed": false}"#))
    /// ```
    ///
    /// A `String` argument is always taken as JSON text; to send a JSON string literal, write it
    /// quoted: `.json(#""hello""#)`.
    public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(
            .respond(
                status: status, headers: withContentType(headers, "application/json"),
                body: .bytes(Data(text.utf8))))
    }

    /// Answers with plain text and `Content-Type: text/plain; charset=utf-8` (unless `headers` sets one).
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(
            .respond(
                status: status, headers: withContentType(headers, "text/plain; charset=utf-8"),
                body: .bytes(Data(text.utf8))))
    }

    /// Answers with the contents of the file `name` in `directory`, read each time it is served.
    ///
    /// The `Content-Type` follows the extension (`.json`, `.txt`, `.html`, `.xml`, otherwise
    /// `application/octet-stream`) unless `headers` sets one. A missing or unreadable file fails that
    /// request with a `.transport` error naming the path and the files that are there.
    ///
    /// ```swift
    /// let fixtures = URL(fileURLWithPath: #filePath)
    ///     .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    ///     .appendingPathComponent("Fixtures")
    /// stub.on(.get, "/todos", respond: .fixture("todos.json", in: fixtures))
    /// ```
    public static func fixture(
        _ name: String,
        in directory: URL,
        status: Int = 200,
        headers: [String: String] = [:]
    ) -> StubResponse {
        let contentType = FixtureFiles.contentType(forFileName: name)
        return StubResponse(
            .respond(
                status: status, headers: withContentType(headers, contentType),
                body: .fixture(name: name, directory: directory)))
    }

    /// Answers with a status and no body, such as `204` or `500`.
    public static func status(_ code: Int, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(.respond(status: code, headers: HeaderFields(headers), body: .bytes(Data())))
    }

    /// Fails the request with `error`, as if no response arrived.
    ///
    /// ```swift
    /// stub.on(.get, "/slow", respond: .failure(.timedOut))
    /// ```
    public static func failure(_ error: HTTPClientError) -> StubResponse {
        StubResponse(.fail(error))
    }

    /// Fails the request with `.transport(URLError(code))`, as a real connection failure would.
    ///
    /// ```swift
    /// stub.on(.get, "/todos", respond: .urlError(.notConnectedToInternet))
    /// ```
    public static func urlError(_ code: URLError.Code) -> StubResponse {
        StubResponse(.fail(.transport(URLError(code))))
    }

    /// The same answer after `seconds` of simulated latency (replacing any earlier delay).
    ///
    /// The wait ends early with `.cancelled` when the calling task is cancelled, and with
    /// `.timedOut` at the call's deadline (the endpoint's `timeout`), as with a real server that is
    /// too slow: a test of a timeout takes as long as the timeout, not the latency.
    ///
    /// ```swift
    /// stub.on(.get, "/todos", respond: .json(todos).delayed(by: 0.3))
    /// ```
    public func delayed(by seconds: TimeInterval) -> StubResponse {
        StubResponse(outcome, latency: seconds.isFinite && seconds > 0 ? seconds : 0)
    }

    static func withContentType(_ headers: [String: String], _ contentType: String) -> HeaderFields {
        var fields = HeaderFields(headers)
        if !fields.contains("Content-Type") { fields.add(name: "Content-Type", value: contentType) }
        return fields
    }
}

extension StubResponse {
    /// Waits out the latency, then delivers the answer to `request` into `sink`, or throws.
    func serve(to request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        try await SimulatedLatency.wait(latency, until: context.deadline, on: context.clock)
        switch outcome {
        case .fail(let error):
            throw error
        case .respond(let status, let headers, let body):
            let head = ResponseHead(statusCode: status, headers: headers, url: request.url)
            switch body {
            case .bytes(let data):
                try await BodyDelivery.deliver(head, body: data, into: sink)
            case .fixture(let name, let directory):
                try await BodyDelivery.deliver(head, body: try FixtureFiles.read(name, in: directory), into: sink)
            case .stream(let stream):
                if Task.isCancelled { throw .cancelled }
                try sink.receive(head)
                try await stream.play(into: sink, until: context.deadline, on: context.clock)
            }
            return head
        }
    }
}
