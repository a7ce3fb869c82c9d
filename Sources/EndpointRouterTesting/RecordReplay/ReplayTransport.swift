import EndpointRouter
import Foundation

/// A transport that answers from the files a ``RecordingTransport`` wrote: recorded once, tests then
/// run offline and deterministically.
///
/// ```swift
/// let replay = ReplayTransport(directory: recordings)
/// let todo = try await withTransport(replay) {
///     try await TodoAPI.todo(id: 1).request(type: Todo.self).get()
/// }
/// ```
///
/// A request finds its file by method, path, query, body and whether it carries a credential, as
/// described under ``RecordingTransport``; header values and host do not matter, so a request
/// without credentials is never answered with what a signed-in one recorded. Query items and JSON body members that
/// were redacted when recording are read from the file itself, so they match whatever their value
/// now and this transport needs no redaction settings. Status, headers and body are served exactly as recorded
/// (redacted headers read `REDACTED`), the body in pieces as a network would deliver it, so size
/// limits, downloads and progress work as they did live; the same file answers as often as it is
/// asked.
/// A request with no recording fails with a `.transport` error naming the request and the file it
/// looked for.
///
/// A recorded stream is served at once by default, each piece after the library has room for it.
/// With `replaysChunkTiming`, a recording that holds chunk timing (see
/// ``RecordingTransport/recordsChunkTiming``) is served piece by piece at the recorded pace, for
/// tests of what a consumer does while a stream trickles in:
///
/// ```swift
/// let replay = ReplayTransport(directory: recordings, replaysChunkTiming: true)
/// let lines = try await withTransport(replay) { try await LogsAPI.tail(app: "web").lines().collect() }
/// ```
///
/// A stream recorded as cut (its consumer left early) is served up to where it was cut, then fails
/// with `.transport(URLError(.networkConnectionLost))` saying so: the recording has nothing after it.
///
/// A request body's upload progress is reported before the recorded response is served, as
/// ``StubTransport`` reports it: after each piece of 64 KiB, ending with the whole body.
public final class ReplayTransport: HTTPTransport, RequestRecording {
    /// Where the recordings are read from.
    public let directory: URL
    /// Whether a recording with chunk timing is served at its recorded pace rather than at once.
    public let replaysChunkTiming: Bool
    private let log = RequestLog()

    /// Creates a transport that replays the recordings in `directory`.
    ///
    /// - Parameters:
    ///   - directory: Where the recordings are.
    ///   - replaysChunkTiming: Whether a recording with chunk timing is served piece by piece with
    ///     the recorded pauses (which honour cancellation and the call's deadline); otherwise, and for
    ///     recordings without timing, the body is served at once.
    public init(directory: URL, replaysChunkTiming: Bool = false) {
        self.directory = directory
        self.replaysChunkTiming = replaysChunkTiming
    }

    /// Answers `request` from its recording, delivering the recorded response into `sink`.
    ///
    /// - Throws: `.cancelled` when the task is cancelled; what `sink` throws (then nothing more is
    ///   written); `.transport(URLError(.fileDoesNotExist))` when there is no recording;
    ///   `.transport(URLError(.cannotParseResponse))` when the file is not a recording;
    ///   `.transport(URLError(.networkConnectionLost))` after the body of a stream recorded as cut;
    ///   `.timedOut` when a recorded pause reaches past `context.deadline`.
    public func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        log.append(request, context: context)
        if Task.isCancelled { throw .cancelled }
        let file = try recording(
            for: request, credentialHeaders: context.options.credentialHeaders, credentialQueryItems: context.options.credentialQueryItems)
        let contents: Data
        do {
            contents = try Data(contentsOf: file)
        } catch {
            throw .transport(
                .cannotParseResponse, "ReplayTransport could not read \(file.path): \(error.localizedDescription)",
                url: file)
        }
        switch RecordingFile.parseResponse(contents) {
        case .success(let response):
            // The request went out before its recorded response came back: its upload progress first.
            try await SimulatedUpload.send(request.body, context: context)
            let head = ResponseHead(statusCode: response.status, headers: response.headers, url: request.url)
            if replaysChunkTiming, let chunks = response.chunks {
                if Task.isCancelled { throw .cancelled }
                try sink.receive(head)
                try await Self.play(response.body, chunks: chunks, into: sink, until: context.deadline, on: context.clock)
            } else {
                try await BodyDelivery.deliver(head, body: response.body, into: sink)
            }
            if response.isCut {
                throw .transport(
                    .networkConnectionLost,
                    """
                    ReplayTransport has served all of \(file.lastPathComponent): the stream was cut there when it was \
                    recorded, because its consumer stopped reading. Record it again reading further to replay more.
                    """, url: file)
            }
            return head
        case .failure(let error):
            throw .transport(
                .cannotParseResponse,
                """
                ReplayTransport cannot use \(file.path): \(error.reason). Record it again with RecordingTransport \
                or fix the file by hand.
                """, url: file)
        }
    }

    /// Writes `body` in the recorded pieces, each after its recorded delay. Sizes that no longer add
    /// up to the body (a JSON member redacted when recording changes its length) are clipped to it,
    /// and what is left over goes out at the end.
    private static func play(
        _ body: Data, chunks: [RecordedChunk], into sink: any ResponseBodySink, until deadline: ContinuousClock.Instant,
        on clock: any CallClock
    ) async throws(HTTPClientError) {
        var start = body.startIndex
        for chunk in chunks where start < body.endIndex {
            try await SimulatedLatency.wait(chunk.delay, until: deadline, on: clock)
            let end = body.index(start, offsetBy: chunk.size, limitedBy: body.endIndex) ?? body.endIndex
            try await BodyDelivery.write(body[start..<end], into: sink)
            start = end
        }
        try await BodyDelivery.write(body[start...], into: sink)
    }

    /// The requests received so far, oldest first.
    public var capturedRequests: [CapturedRequest] { log.all }

    /// Forgets the requests received so far.
    public func removeAllCapturedRequests() { log.removeAll() }

    /// The file for `request`: its own name without redaction (but with the call's credential
    /// headers and query items), or else a file of the same method and path whose name comes out right once the
    /// query items, JSON members and headers that file shows as `REDACTED` are redacted.
    private func recording(for request: OutgoingRequest, credentialHeaders: Set<String>, credentialQueryItems: Set<String>)
        throws(HTTPClientError) -> URL
    {
        let credentials = RecordingRedaction(headers: credentialHeaders, queryKeys: credentialQueryItems)
        let plainName = RecordingKey.fileName(for: request, redaction: credentials)
        let plainFile = directory.appendingPathComponent(plainName)
        if FileManager.default.fileExists(atPath: plainFile.path) { return plainFile }

        let method = request.method
        let stem = RecordingKey.stem(method: method, path: RequestTarget.encodedPath(of: request.url))
        let siblings = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { Self.isRecording($0, stem: stem) }.sorted()
        for name in siblings {
            let file = directory.appendingPathComponent(name)
            guard let contents = try? Data(contentsOf: file), let target = RecordingFile.requestTarget(contents) else {
                continue
            }
            let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
            let pairs = RequestTarget.queryPairs(query)
            let redactedQuery = pairs.filter { $0.value == RecordingRedaction.placeholder }.map(\.name)
            // A credential-looking item the file shows in clear was revealed when recording (or
            // recorded before the library hid such names by default): replay must not hide it either.
            let revealedQuery = pairs.filter { $0.value != RecordingRedaction.placeholder }.map(\.name)
            let redactedJSON = RecordingFile.requestBody(contents).map(RecordingRedaction.redactedJSONKeys(in:)) ?? []
            // A header the recorder was told to redact is a credential replay cannot know otherwise.
            let redactedHeaders = RecordingFile.redactedRequestHeaders(contents)
                .filter { !SensitiveHeaders.contains($0, extra: credentialHeaders) }
            let redaction = RecordingRedaction(
                headers: credentialHeaders.union(redactedHeaders), queryKeys: credentialQueryItems.union(redactedQuery),
                jsonKeys: redactedJSON, revealing: Set(revealedQuery).subtracting(credentialQueryItems))
            if RecordingKey.fileName(for: request, redaction: redaction) == name {
                return file
            }
        }

        let summary = RequestTarget.summary(method: method, url: request.url)
        let nearby =
            siblings.isEmpty
            ? FixtureFiles.listing(of: directory)
            : "Recordings of \(method.rawValue) \(RequestTarget.encodedPath(of: request.url)) with another query or body: "
                + siblings.joined(separator: ", ") + "."
        throw .transport(
            .fileDoesNotExist,
            """
            ReplayTransport has no recording for \(summary): expected the file \(plainName) in \(directory.path). \
            \(nearby) Record it by running the test once with RecordingTransport(wrapping:directory:) \
            in place of ReplayTransport.
            """, url: plainFile)
    }

    /// `GET_todos_1_3fa9c2d1.http` for the stem `GET_todos_1`, but not `GET_todos_1_2_...`.
    private static func isRecording(_ name: String, stem: String) -> Bool {
        let suffix = "." + RecordingKey.fileExtension
        guard name.hasPrefix(stem + "_"), name.hasSuffix(suffix) else { return false }
        let hash = name.dropFirst(stem.count + 1).dropLast(suffix.count)
        return hash.count == 8 && hash.allSatisfy(\.isHexDigit)
    }
}
