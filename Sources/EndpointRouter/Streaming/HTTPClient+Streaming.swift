import Foundation

extension HTTPClient {
    /// The response as Server-Sent Events (`text/event-stream`), parsed as the WHATWG HTML standard
    /// specifies.
    ///
    /// ```swift
    /// for try await event in ChatAPI.completions(prompt).events() {
    ///     print(event.event ?? "message", event.data)
    /// }
    /// ```
    ///
    /// Sends `Accept: text/event-stream` and `Cache-Control: no-cache` (a `headers` entry of the same
    /// name wins). See ``ResponseStream`` for when the request is sent and what ends it, and
    /// ``ReconnectPolicy`` for reconnecting with `Last-Event-ID`.
    ///
    /// An answer whose `Content-Type` is not `text/event-stream` (an endpoint that answers JSON
    /// unless asked for events, a gateway's HTML page) throws `.decodingFailed` with its head
    /// before any element, rather than ending with no event and no error. An answer with no
    /// `Content-Type` at all is read as events: the server declared nothing to contradict the request.
    ///
    /// - Parameters:
    ///   - limits: the event size limit (``StreamLimits/maxElementSize``: the data of one event),
    ///     read-ahead buffer and timeouts.
    ///   - reconnect: whether a lost connection is made again; ``ReconnectPolicy/never`` unless given.
    ///   - headers: set on this call's request, replacing the endpoint's headers of the same name.
    ///   - middlewares: run after the endpoint's ``HTTPClient/middlewares``, closest to the transport.
    public func events(
        limits: StreamLimits = StreamLimits(), reconnect: ReconnectPolicy = .never, headers: [String: String] = [:],
        middlewares: [any HTTPMiddleware] = []
    ) -> ResponseStream<ServerSentEvent> {
        let headers = ["Accept": "text/event-stream", "Cache-Control": "no-cache"].merging(headers) { $1 }
        return stream(limits: limits, reconnect: reconnect, headers: headers, middlewares: middlewares) {
            ContentTypeChecked(EventFraming(maxEventSize: limits.maxElementSize), media: .events)
        }
    }

    /// The response body as UTF-8 lines, without their LF or CRLF; a last line without one is
    /// included. Invalid UTF-8 becomes U+FFFD.
    ///
    /// ```swift
    /// for try await line in LogsAPI.tail(app: "web").lines() { print(line) }
    /// ```
    ///
    /// A line longer than ``StreamLimits/maxElementSize`` ends the stream with `.responseTooLarge`.
    /// See ``ResponseStream`` for when the request is sent and what ends it.
    ///
    /// Reads answers declared as text (`text/*`), JSON or JSON Lines; another `Content-Type` (an
    /// image, `application/octet-stream`) throws `.decodingFailed` with the answer's head before any
    /// line. An answer with no `Content-Type` at all is read as lines.
    public func lines(limits: StreamLimits = StreamLimits(), headers: [String: String] = [:], middlewares: [any HTTPMiddleware] = [])
        -> ResponseStream<String>
    {
        stream(limits: limits, reconnect: .never, headers: headers, middlewares: middlewares) {
            ContentTypeChecked(LineFraming(maxLineSize: limits.maxElementSize), media: .lines)
        }
    }

    /// The response body as JSON Lines (NDJSON): each non-empty line decoded as one `T` with the
    /// endpoint's ``HTTPClient/decoder``.
    ///
    /// ```swift
    /// for try await row in LogsAPI.tail(app: "web").jsonLines(of: LogLine.self) { print(row.message) }
    /// ```
    ///
    /// A line that does not decode throws `.decodingFailed` naming its line number and the coding
    /// path, never its content. See ``ResponseStream`` for when the request is sent and what ends it.
    ///
    /// Reads answers declared as JSON Lines (`application/x-ndjson`, `application/jsonl`, …) or as
    /// JSON (servers such as httpbin send JSON Lines as `application/json`); another `Content-Type`
    /// (`text/html`, `text/event-stream`) throws `.decodingFailed` with the answer's head before any
    /// line. An answer with no `Content-Type` at all is read as JSON Lines.
    public func jsonLines<T: Decodable & Sendable>(
        of type: T.Type, limits: StreamLimits = StreamLimits(), headers: [String: String] = [:], middlewares: [any HTTPMiddleware] = []
    ) -> ResponseStream<T> {
        let decoder = self.decoder
        return stream(limits: limits, reconnect: .never, headers: headers, middlewares: middlewares) {
            ContentTypeChecked(JSONLineFraming<T>(maxLineSize: limits.maxElementSize, decoder: decoder), media: .jsonLines)
        }
    }

    /// The response body in pieces of `Data`, as the transport delivers them (their sizes are the
    /// transport's), for media and other binary streams.
    ///
    /// ```swift
    /// for try await piece in MediaAPI.live.bytes() { player.enqueue(piece) }
    /// ```
    ///
    /// See ``ResponseStream`` for when the request is sent and what ends it.
    public func bytes(limits: StreamLimits = StreamLimits(), headers: [String: String] = [:], middlewares: [any HTTPMiddleware] = [])
        -> ResponseStream<Data>
    {
        stream(limits: limits, reconnect: .never, headers: headers, middlewares: middlewares) { PieceFraming() }
    }

    /// The endpoint's call taken now, on the caller's actor (the endpoint need not be `Sendable`),
    /// with the ``TaskOverride`` bound at this point.
    private func stream<Element>(
        limits: StreamLimits, reconnect: ReconnectPolicy, headers: [String: String], middlewares: [any HTTPMiddleware],
        framing: @escaping @Sendable () -> some StreamFraming<Element>
    ) -> ResponseStream<Element> {
        let overrides = CallOverrides(headers: headers, middlewares: middlewares)
        let call: Result<Call, HTTPClientError> =
            if let problem = limits.problem { .failure(problem) } else {
                Result { () throws(HTTPClientError) in try Call(self, overrides) }
            }
        return ResponseStream(call: call, limits: limits, reconnect: reconnect, framing: { framing() })
    }
}
