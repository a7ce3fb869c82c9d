import EndpointRouter
import Foundation

/// A transport that passes requests on to another one and writes each request with its response to
/// a text file, so that a ``ReplayTransport`` can answer the same requests later without the network.
///
/// ```swift
/// let recorder = RecordingTransport(wrapping: URLSessionTransport.shared, directory: recordings,
///                                   redactingHeaders: ["X-Customer-Id"], redactingQueryKeys: ["code"],
///                                   redactingJSONKeys: ["password", "access_token", "refresh_token"])
/// _ = try await withTransport(recorder) { try await TodoAPI.todo(id: 1).request(type: Todo.self).get() }
/// // recordings/GET_todos_1_3fa9c2d1.http now holds the request and the response
/// ```
///
/// Files are named by ``fileName(for:)``: method, path and a hash of path, query, body and whether a
/// credential header is present, so one file per distinct request; recording the same request again
/// replaces its file. Repeated query
/// items keep their order in the hash (`sort=name&sort=-date` is not `sort=-date&sort=name`), and
/// a `multipart/form-data` body counts by its parts, not its random boundary.
///
/// Before anything is written, values are replaced by `REDACTED` (names compare case-insensitively):
/// - the credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, the
///   list the library also strips on a redirect to another origin), the header an
///   `AuthorizationMiddleware` put its credential in, the endpoint's `RedirectPolicy.sensitiveHeaders`
///   the headers in `redactingHeaders` and every header whose name looks like a credential
///   (`X-Api-Key`, `X-Auth-Token`, …, by the rule `Redaction` describes), in request and response;
/// - the query items in `redactingQueryKeys` and every credential-looking one (`api_key`,
///   `access_token`, `X-Amz-Signature`, `sig`, …);
/// - unless named in `revealing`, which shows a credential-looking name that is not secret;
/// - in JSON request and response bodies, the members in `redactingJSONKeys`, at any depth and
///   inside arrays, whatever their value; the rest of the body is kept byte for byte, and a
///   response's `Content-Length` that gave the body's length is corrected to the redacted length
///   (any other, such as a gzip body's compressed length, is kept: replay gives what live gave).
///
/// The file name is computed from the redacted request, so a recording replays whatever the secret
/// is on the next run (a rotated token, a test password). Two requests that differ only in a
/// redacted value therefore share one file — two users with different tokens too: record each
/// user's answers in a directory of their own. A request with credentials and one without never
/// share a file. Not redacted: bodies that are not JSON (form and
/// multipart fields, text) and file bodies.
///
/// The response streams through to the library as the wrapped transport delivers it, unchanged and
/// unredacted, so size limits, downloads and progress behave as without the recorder; a copy of the
/// body is kept in memory until the file is written. Each exchange of a call is one recording: with
/// redirects, every hop has its own file. Failures of the wrapped transport, and responses the
/// library refused (too large, cancelled), are passed on and not recorded.
///
/// **Streams.** A streaming call (`events()`, `lines()`, `jsonLines(of:)`, `bytes()`) is recorded
/// like any other: each piece reaches the consumer as it arrives, and the consumer's pace holds the
/// wrapped transport back through the recorder. The file is written when the exchange ends. A stream
/// whose consumer left before it ended (a `break`, a cancelled task: often the only way an endless
/// stream ends) is recorded with what the consumer had been given, marked as cut; replay serves that
/// and then fails with a lost connection, because the recording has nothing after it. That file is
/// written just after the loop ends, as the exchange winds down; ``waitForRecordings()`` waits for it.
/// A stream that failed (a lost connection, an idle timeout) is passed on and not recorded.
/// With `recordsChunkTiming`, each piece's size and the time before it are recorded too, for
/// ``ReplayTransport`` to replay the stream at its recorded pace:
///
/// ```swift
/// let recorder = RecordingTransport(wrapping: live, directory: recordings, recordsChunkTiming: true)
/// try await withTransport(recorder) {
///     for try await event in ChatAPI.chat.events() where event.event == "done" { break }
/// }
/// await recorder.waitForRecordings()
/// ```
public final class RecordingTransport: HTTPTransport, RequestRecording {
    /// Where the recordings go; created when the first one is written.
    public let directory: URL
    /// Whether each body piece's size and the time before it are recorded, for
    /// ``ReplayTransport/init(directory:replaysChunkTiming:)`` to replay a stream at its pace.
    public let recordsChunkTiming: Bool
    private let wrapped: any HTTPTransport
    private let redaction: RecordingRedaction
    private let log = RequestLog()
    /// Exchanges started and not yet ended (their recording not yet written).
    private let inFlight = Locked(0)

    /// Creates a recorder around `transport`.
    ///
    /// - Parameters:
    ///   - transport: What actually sends the requests, such as `URLSessionTransport.shared`.
    ///   - directory: Where to write recordings.
    ///   - redactingHeaders: Headers to redact besides `Authorization`, `Proxy-Authorization`,
    ///     `Cookie`, `Set-Cookie` and every name that looks like a credential (`X-Api-Key`,
    ///     `X-Auth-Token`, …: the library's rule, described under `Redaction`).
    ///   - redactingQueryKeys: Query items whose values are redacted besides the credential-looking
    ///     ones (`api_key`, `access_token`, `sig`, …), in the file and in the hash of the file name,
    ///     so that replay finds the file whatever the secret's value.
    ///   - redactingJSONKeys: Members of JSON request and response bodies whose values are redacted,
    ///     such as `password` or `access_token`, at any depth; in the file and in the hash of the
    ///     file name, like query items.
    ///   - revealing: Header names and query keys that look like credentials but are not secret,
    ///     recorded in clear (e.g. `["Idempotency-Key"]`); the credential headers and the names
    ///     listed above stay redacted.
    ///   - recordsChunkTiming: Whether to record, for each body piece, its size and the seconds since
    ///     the previous one (time the wrapped transport spent waiting for a slow consumer left out,
    ///     so the file keeps the server's pace, not the test's). Off by default: most tests want the
    ///     body, not its timing, and the chunk lines make files longer.
    public init(
        wrapping transport: any HTTPTransport,
        directory: URL,
        redactingHeaders: Set<String> = [],
        redactingQueryKeys: Set<String> = [],
        redactingJSONKeys: Set<String> = [],
        revealing: Set<String> = [],
        recordsChunkTiming: Bool = false
    ) {
        wrapped = transport
        self.directory = directory
        self.recordsChunkTiming = recordsChunkTiming
        redaction = RecordingRedaction(
            headers: redactingHeaders, queryKeys: redactingQueryKeys, jsonKeys: redactingJSONKeys, revealing: revealing)
    }

    /// The name of the file that records `request`, such as `GET_todos_1_3fa9c2d1.http`.
    ///
    /// Counts as credentials the library's credential headers and `redactingHeaders`; during a call,
    /// the headers a middleware or the endpoint declared sensitive count too.
    public func fileName(for request: OutgoingRequest) -> String {
        RecordingKey.fileName(for: request, redaction: redaction)
    }

    /// Sends `request` through the wrapped transport, its response flowing on into `sink`, and
    /// records the exchange once it is complete (or, for a stream its consumer left, cut).
    ///
    /// - Throws: what the wrapped transport or `sink` throws; `.transport(URLError(.cannotWriteToFile))`
    ///   when the recording cannot be written, because a test that silently records nothing would
    ///   pass today and fail on replay tomorrow.
    public func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        log.append(request, context: context)
        inFlight.withLock { $0 += 1 }
        defer { inFlight.withLock { $0 -= 1 } }
        let tee = TeeSink(forwardingTo: sink, timesChunks: recordsChunkTiming)
        let head: ResponseHead
        do {
            head = try await wrapped.send(request, context: context, sink: tee)
        } catch {
            // A consumer that left its loop ends the exchange with `.cancelled`; what it was given is
            // still a faithful recording of the stream's start. Nobody awaits this exchange any
            // more, so a write failure has no one to reach and the cancellation is what is thrown.
            if context.isStreaming, error == .cancelled || Task.isCancelled, let cut = tee.cutRecording() {
                try? write(request, context: context, head: cut.head, body: cut.body, chunks: tee.recordedChunks, isCut: true)
            }
            throw error
        }
        let body = try tee.recordedBody()
        try write(request, context: context, head: head, body: body, chunks: tee.recordedChunks, isCut: false)
        return head
    }

    /// Returns once every exchange started through the recorder has ended and its recording is
    /// written (or failed to be), or when the calling task is cancelled.
    ///
    /// A stream whose consumer leaves its loop is written as the exchange winds down, just after
    /// the loop; a test that reads the file, or replays it, right away awaits this first:
    ///
    /// ```swift
    /// try await withTransport(recorder) {
    ///     for try await line in LogsAPI.tail(app: "web").lines() where line == "ready" { break }
    /// }
    /// await recorder.waitForRecordings()
    /// ```
    ///
    /// An exchange still streaming keeps it waiting until that stream ends.
    public func waitForRecordings() async {
        // Polling keeps the bookkeeping to one counter; a test waits for milliseconds at most here.
        while inFlight.withLock({ $0 }) > 0, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    private func write(
        _ request: OutgoingRequest, context: CallContext, head: ResponseHead, body: Data, chunks: [RecordedChunk]?, isCut: Bool
    ) throws(HTTPClientError) {
        // An API key a middleware added is a secret even when the test did not list its header.
        let redaction = redaction.adding(headers: context.options.credentialHeaders, queryKeys: context.options.credentialQueryItems)
        let file = directory.appendingPathComponent(RecordingKey.fileName(for: request, redaction: redaction))
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try RecordingFile.render(request: request, head: head, body: body, redaction: redaction, chunks: chunks, isCut: isCut)
                .write(to: file, options: .atomic)
        } catch {
            throw .transport(
                .cannotWriteToFile,
                "RecordingTransport could not write the recording of "
                    + "\(RequestTarget.summary(method: request.method, url: request.url)) "
                    + "to \(file.path): \(error.localizedDescription)", url: file)
        }
    }

    /// The requests received so far, oldest first, as sent (not redacted: they stay in memory).
    public var capturedRequests: [CapturedRequest] { log.all }

    /// Forgets the requests received so far; files already written stay.
    public func removeAllCapturedRequests() { log.removeAll() }
}
