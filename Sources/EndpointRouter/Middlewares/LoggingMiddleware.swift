import Foundation

/// Logs one line for each request and one for its response — endpoint, attempt, method, URL,
/// status, duration and body size — with every secret written as `<redacted>`.
///
/// ```swift
/// enum TodoAPI: HTTPClient {
///     case todo(id: Int)
///     var host: String { "https://api.example.com" }
///     var endpoint: String { if case .todo(let id) = self { "todos/\(segment: id)" } else { "" } }
///     var middlewares: [any HTTPMiddleware] {
///         [LoggingMiddleware(redaction: Redaction(queryKeys: ["code"], bodyKeys: ["password"]))]
///     }
/// }
/// // debug one call only, with a cURL command to replay it:
/// let todo = await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [LoggingMiddleware(curl: true)])
/// ```
///
/// ```
/// info: → TodoAPI.todo #1 GET https://api.example.com/todos/1?api_key=<redacted>
/// info: ← TodoAPI.todo #1 GET https://api.example.com/todos/1?api_key=<redacted> 200 in 84.2 ms, 83 bytes
/// ```
///
/// Safe by default: the credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie`), every header and query item whose name looks like a credential (`X-Api-Key`,
/// `api_key`, `access_token`, `X-Amz-Signature`, `sig`, …: the rule of ``Redaction/redactsHeader(_:)``),
/// the header or query item an ``AuthorizationMiddleware`` closer to the caller put its credential
/// in, the headers the endpoint declared in ``RedirectPolicy/sensitiveHeaders``, and the names
/// configured in ``redaction`` are redacted in the lines, the metadata, the URL and the cURL
/// command alike; a URL's user name and password are removed. A name the rule hides although it is
/// not secret is shown with `Redaction(revealing: ["Idempotency-Key"])`. Request bodies are written only when
/// ``includesBodies`` is on, only if they are JSON or a form (whose keys can be redacted), and cut to
/// 200 bytes; response bodies are never written, only their size.
///
/// It keeps no state, so creating one per call (in a computed `middlewares`) is fine. Placed last
/// in the list, closest to the transport, it logs every attempt as it goes on the wire (after a
/// retry or token refresh); placed first, it logs the call once as the caller sees it.
public struct LoggingMiddleware: HTTPMiddleware {
    /// What is blanked out.
    public let redaction: Redaction
    /// The level of request and response lines.
    public let level: LogLevel
    /// The level of the line for a call that ended in an error (no response).
    public let failureLevel: LogLevel
    /// Whether the request line lists the headers (redacted).
    public let includesHeaders: Bool
    /// Whether the request line shows the start of a JSON or form body (redacted).
    public let includesBodies: Bool
    /// Whether each request is also written as a `curl` command, as a line of its own: redacted, and
    /// with the body when it is JSON or a form of at most 16 KiB (redacted too), whatever
    /// ``includesBodies`` says, so the command sends what the request sent.
    public let curl: Bool
    /// Where the lines go.
    public let sink: LogSink

    /// Creates a logger.
    ///
    /// - Parameters:
    ///   - redaction: header names, query keys and body keys to redact besides the credential-looking
    ///     ones, and names of those to show (`revealing`).
    ///   - level: the level of request and response lines.
    ///   - failureLevel: the level of the line for a call that failed without a response.
    ///   - includesHeaders: whether the request line lists the headers.
    ///   - includesBodies: whether the request line shows the start of the body.
    ///   - curl: whether to write a `curl` command for each request.
    ///   - sink: where lines go; standard error by default.
    public init(
        redaction: Redaction = Redaction(), level: LogLevel = .info, failureLevel: LogLevel = .warning,
        includesHeaders: Bool = false, includesBodies: Bool = false, curl: Bool = false,
        sink: LogSink = .standardError
    ) {
        self.redaction = redaction
        self.level = level
        self.failureLevel = failureLevel
        self.includesHeaders = includesHeaders
        self.includesBodies = includesBodies
        self.curl = curl
        self.sink = sink
    }

    /// Logs the request, passes it on, and logs the response or the error.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        // The credentials this call carries under names of its own (an API key header or query item)
        // are known only now, from the context.
        let redaction = redaction.adding(
            headers: context.options.credentialHeaders, queryKeys: context.options.credentialQueryItems)
        let url = redaction.url(request.url)
        let label = "\(context.endpointName) #\(context.attempt) \(request.method.rawValue) \(url)"
        var metadata = [
            "endpoint": context.endpointName, "method": request.method.rawValue, "url": url,
            "attempt": String(context.attempt),
        ]
        sink.write(level, "→ " + label + requestDetails(request, redaction: redaction), metadata)
        if curl {
            sink.write(level, CURLCommand.of(request, redaction: redaction), metadata)
        }
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            let milliseconds = Self.milliseconds(ContinuousClock.now - start)
            let bytes = ExchangeCounter.size(of: response)
            metadata["status"] = String(response.statusCode)
            metadata["duration_ms"] = milliseconds
            metadata["bytes"] = String(bytes)
            guard response.isStreaming else {
                sink.write(level, "← \(label) \(response.statusCode) in \(milliseconds) ms, \(bytes) bytes", metadata)
                return response
            }
            // A stream: the head line now, the counts when the body has ended.
            sink.write(level, "← \(label) \(response.statusCode) in \(milliseconds) ms, streaming", metadata)
            let (sink, level, failureLevel, headMetadata) = (self.sink, self.level, self.failureLevel, metadata)
            context.onStreamEnd { summary in
                var metadata = headMetadata
                metadata["bytes"] = String(summary.bytes)
                metadata["elements"] = String(summary.elements)
                metadata["duration_ms"] = Self.milliseconds(summary.duration)
                let counts = "\(summary.bytes) bytes, \(summary.elements) elements in \(Self.milliseconds(summary.duration)) ms"
                // `.cancelled` before the deadline is the consumer leaving its loop: its choice, not a failure.
                if summary.error == .cancelled, context.clock.now < context.deadline {
                    sink.write(level, "⇠ \(label) stream ended by the caller after \(counts)", metadata)
                } else if let error = summary.error {
                    metadata["error"] = error.caseName
                    sink.write(failureLevel, "⇠ \(label) stream ended: \(error.caseName) after \(counts)", metadata)
                } else {
                    sink.write(level, "⇠ \(label) stream ended after \(counts)", metadata)
                }
            }
            return response
        } catch {
            let milliseconds = Self.milliseconds(ContinuousClock.now - start)
            metadata["error"] = error.caseName
            metadata["duration_ms"] = milliseconds
            sink.write(failureLevel, "← \(label) failed in \(milliseconds) ms: \(error.caseName)", metadata)
            throw error
        }
    }

    private func requestDetails(_ request: OutgoingRequest, redaction: Redaction) -> String {
        var details = ""
        if includesHeaders, !request.headers.fields.isEmpty {
            details +=
                " headers: "
                + redaction.headers(request.headers).fields
                .map { "\($0.name): \($0.value)" }.joined(separator: ", ")
        }
        switch request.body {
        case .data(let data) where !data.isEmpty:
            details += ", body \(data.count) bytes"
            if includesBodies, let text = redaction.bodyText(data, contentType: request.headers["Content-Type"]) {
                details += ": " + BodyPreview.text(of: Data(text.utf8))
            }
        case .file(let file):
            details += ", body from file \(file.lastPathComponent)"
        default:
            break
        }
        return details
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String(format: "%.1f", value)
    }
}
