import EndpointRouter
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One step of a stubbed stream (``StubResponse/stream(_:status:headers:)``): a piece of the body, a
/// pause, or the connection dropping.
///
/// ```swift
/// stub.on(.get, "/feed", respond: .stream([
///     .chunk("data: first\n\n"),
///     .pause(0.05),
///     .chunk(Data("data: second\n\n".utf8)),
///     .drop(.networkConnectionLost),
/// ]))
/// ```
public struct StubStreamStep: Sendable {
    enum Kind: Sendable {
        case chunk(Data)
        case pause(TimeInterval)
        case fail(HTTPClientError)
    }

    let kind: Kind

    /// A piece of the body, delivered as one write (one of 64 KiB at most each when it is larger),
    /// after the consumer has room for it.
    public static func chunk(_ data: Data) -> StubStreamStep {
        StubStreamStep(kind: .chunk(data))
    }

    /// A piece of the body written as UTF-8 text, such as `"data: hello\n\n"`.
    public static func chunk(_ text: String) -> StubStreamStep {
        StubStreamStep(kind: .chunk(Data(text.utf8)))
    }

    /// A silence of `seconds` before the next step, as from a server with nothing to say yet.
    ///
    /// It ends early with `.cancelled` when the exchange is cancelled (the consumer left its loop),
    /// and with `.timedOut` at the context's deadline, like ``StubResponse/delayed(by:)``.
    public static func pause(_ seconds: TimeInterval) -> StubStreamStep {
        StubStreamStep(kind: .pause(seconds.isFinite && seconds > 0 ? seconds : 0))
    }

    /// The connection is lost: the body ends here with `.transport(URLError(code))`, after the head
    /// and every piece before it. Steps after it are never played.
    ///
    /// ```swift
    /// let lost: StubStreamStep = .drop(.networkConnectionLost)
    /// ```
    public static func drop(_ code: URLError.Code = .networkConnectionLost) -> StubStreamStep {
        StubStreamStep(kind: .fail(.transport(URLError(code))))
    }

    /// The body ends here with `error`, for a failure other than a lost connection (such as
    /// `.timedOut`). Steps after it are never played.
    public static func failure(_ error: HTTPClientError) -> StubStreamStep {
        StubStreamStep(kind: .fail(error))
    }

    /// The steps that write `events` as `text/event-stream` text, one piece per event and `interval`
    /// seconds apart, to combine with others in ``StubResponse/stream(_:status:headers:)``.
    ///
    /// ```swift
    /// stub.on(.get, "/feed", respond: .stream(StubStreamStep.events([ServerSentEvent(data: "a")]) + [.pause(0.1), .drop()],
    ///                                          headers: ["Content-Type": "text/event-stream"]))
    /// ```
    public static func events(_ events: [ServerSentEvent], interval: TimeInterval = 0) -> [StubStreamStep] {
        StubStream.spaced(events.map { Data(StubStream.encode($0).utf8) }, interval: interval)
    }
}

/// The body of a stubbed stream: a finite script of steps, or pieces generated until the exchange
/// ends.
struct StubStream: Sendable {
    enum Source: Sendable {
        case steps([StubStreamStep])
        case endless(interval: TimeInterval, piece: @Sendable (Int) -> String)
    }

    let source: Source

    /// Plays the body into `sink`, whose head was already received.
    ///
    /// Every piece waits for the sink's demand, so a slow consumer holds the stream back, and every
    /// pause, on `clock` (the call's, which `deadline` is on), honours cancellation and `deadline`.
    ///
    /// - Throws: the error of a `.drop` or `.failure` step; what the sink throws; `.cancelled` when
    ///   the task is cancelled; `.timedOut` when a pause reaches past `deadline`.
    func play(
        into sink: any ResponseBodySink, until deadline: ContinuousClock.Instant, on clock: any CallClock
    ) async throws(HTTPClientError) {
        switch source {
        case .steps(let steps):
            for step in steps {
                switch step.kind {
                case .chunk(let data): try await BodyDelivery.write(data, into: sink)
                case .pause(let seconds): try await SimulatedLatency.wait(seconds, until: deadline, on: clock)
                case .fail(let error): throw error
                }
            }
        case .endless(let interval, let piece):
            var index = 0
            while true {
                if index > 0 {
                    if interval > 0 {
                        try await SimulatedLatency.wait(interval, until: deadline, on: clock)
                    } else {
                        // Without a pause, still let other tasks (the consumer) run between pieces.
                        await Task.yield()
                    }
                }
                // The piece is made only once there is room for it, so the generator runs no
                // further ahead of the consumer than the library's buffer.
                try await sink.waitForDemand()
                if Task.isCancelled { throw .cancelled }
                try await BodyDelivery.write(Data(piece(index).utf8), into: sink)
                index += 1
            }
        }
    }

    /// `steps` with a pause of `interval` between each two.
    static func spaced(_ chunks: [Data], interval: TimeInterval) -> [StubStreamStep] {
        var steps: [StubStreamStep] = []
        for (index, chunk) in chunks.enumerated() {
            if index > 0, interval > 0 { steps.append(.pause(interval)) }
            steps.append(.chunk(chunk))
        }
        return steps
    }

    /// `event` as `text/event-stream` text: its fields, one `data:` line per line of its data, and
    /// the blank line that dispatches it.
    static func encode(_ event: ServerSentEvent) -> String {
        var text = ""
        // A line break in a one-line field would end it early and start a bogus field.
        if let name = event.event { text += "event: \(oneLine(name))\n" }
        if let id = event.id { text += "id: \(oneLine(id))\n" }
        if let retry = event.retry { text += "retry: \(retry)\n" }
        let lines = event.data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines { text += "data: \(line)\n" }
        return text + "\n"
    }

    private static func oneLine(_ value: String) -> String {
        String(value.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" })
    }
}

extension StubResponse {
    /// Answers with a stream played step by step: pieces of the body, pauses between them, and
    /// optionally a connection that drops part-way.
    ///
    /// ```swift
    /// stub.on(.get, "/feed", respond: .stream([
    ///     .chunk("data: hi\n\n"),
    ///     .pause(0.05),
    ///     .chunk("data: there\n\n"),
    ///     .drop(.networkConnectionLost),
    /// ], headers: ["Content-Type": "text/event-stream"]))
    /// ```
    ///
    /// The head goes out first (after any ``delayed(by:)`` latency), then the steps in order. Each
    /// piece waits until the library has room for it, as a transport that pulls its body does, so a
    /// slow `for await` loop holds the stub back. The response carries exactly the headers given.
    public static func stream(_ steps: [StubStreamStep], status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(.respond(status: status, headers: HeaderFields(headers), body: .stream(StubStream(source: .steps(steps)))))
    }

    /// Answers with Server-Sent Events, written out as `text/event-stream` text for you, one piece
    /// per event and `interval` seconds between them.
    ///
    /// ```swift
    /// let stub = StubTransport().on(.get, "/chat", respond: .events([ServerSentEvent(data: "Hel"), ServerSentEvent(data: "lo")]))
    /// let texts = try await withTransport(stub) { try await ChatAPI.chat.events().reduce(into: []) { $0.append($1.data) } }
    /// #expect(texts == ["Hel", "lo"])
    /// ```
    ///
    /// `Content-Type` is `text/event-stream` unless `headers` sets one. Each event's `event`, `id`
    /// and `retry` fields are written when set, and its data as one `data:` line per line. The stream
    /// ends after the last event; for a stream that drops after its events, combine
    /// ``StubStreamStep/events(_:interval:)`` with other steps in ``stream(_:status:headers:)``.
    public static func events(
        _ events: [ServerSentEvent], interval: TimeInterval = 0, status: Int = 200, headers: [String: String] = [:]
    ) -> StubResponse {
        StubResponse(
            .respond(
                status: status, headers: withContentType(headers, "text/event-stream"),
                body: .stream(StubStream(source: .steps(StubStreamStep.events(events, interval: interval))))))
    }

    /// Answers with JSON Lines (NDJSON): each value encoded as one line, one piece per line and
    /// `interval` seconds between them.
    ///
    /// ```swift
    /// stub.on(.get, "/logs", respond: .jsonLines([LogLine(message: "started"), LogLine(message: "ready")], interval: 0.01))
    /// ```
    ///
    /// `Content-Type` is `application/x-ndjson` unless `headers` sets one. Line feeds a
    /// pretty-printing encoder adds are removed (JSON text never holds a raw one inside a string), so
    /// each value stays on its line. A value the encoder rejects makes the request fail with
    /// `.encodingFailed` naming its type.
    public static func jsonLines<Value: Encodable & Sendable>(
        _ values: [Value], interval: TimeInterval = 0, status: Int = 200, headers: [String: String] = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) -> StubResponse {
        var lines: [Data] = []
        for value in values {
            do {
                var line = try encoder.encode(value)
                line.removeAll { $0 == UInt8(ascii: "\n") }
                line.append(UInt8(ascii: "\n"))
                lines.append(line)
            } catch {
                return .failure(.encodingFailed("StubResponse.jsonLines could not encode \(Value.self): \(error)"))
            }
        }
        return StubResponse(
            .respond(
                status: status, headers: withContentType(headers, "application/x-ndjson"),
                body: .stream(StubStream(source: .steps(StubStream.spaced(lines, interval: interval))))))
    }

    /// Answers with a stream that never ends: piece number 0, 1, 2, … from `piece`, written as UTF-8,
    /// `interval` seconds apart.
    ///
    /// ```swift
    /// stub.on(.get, "/ticks", respond: .endless { index in "data: \(index)\n\n" })
    /// ```
    ///
    /// It goes on until the exchange ends: the consumer leaves its loop or is cancelled, the stream's
    /// idle or total timeout, or the sink refuses a piece (a whole-body call, `request(type:)`, stops
    /// at its `maxResponseSize` with `.responseTooLarge`). Each piece waits until the library has room
    /// for it, so a slow consumer holds the generator back: at most the stream's buffer is produced
    /// ahead. `piece` is called on the stub's task, once per piece, in order. The response carries
    /// exactly the headers given.
    public static func endless(
        interval: TimeInterval = 0, status: Int = 200, headers: [String: String] = [:],
        _ piece: @escaping @Sendable (_ index: Int) -> String
    ) -> StubResponse {
        let interval = interval.isFinite && interval > 0 ? interval : 0
        return StubResponse(
            .respond(
                status: status, headers: HeaderFields(headers),
                body: .stream(StubStream(source: .endless(interval: interval, piece: piece)))
            )
        )
    }
}
