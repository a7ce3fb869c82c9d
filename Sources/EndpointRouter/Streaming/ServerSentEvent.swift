/// One Server-Sent Event, as an `text/event-stream` response dispatches it.
///
/// A block of fields ended by a blank line becomes one event:
///
/// ```text
/// event: update
/// data: {"id":1,
/// data:  "text":"hi"}
/// id: 42
///
/// ```
///
/// gives `ServerSentEvent(event: "update", data: "{\"id\":1,\n \"text\":\"hi\"}", id: "42")`.
/// Decode `data` as the API documents it, for example as JSON:
///
/// ```swift
/// let update = try JSONDecoder().decode(Update.self, from: Data(event.data.utf8))
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event` field, or nil when the event had none (a browser then dispatches it as "message").
    public var event: String?
    /// The `data` lines joined with LF.
    public var data: String
    /// The last event ID at dispatch (the spec's "last event ID buffer", which persists across events); nil when empty.
    ///
    /// An event without an `id` field carries the ID of an earlier one, so whichever event a consumer
    /// saw last tells it where to resume (the `Last-Event-ID` header of a reconnect).
    public var id: String?
    /// The reconnection time in milliseconds when this event's block carried a valid `retry` field.
    public var retry: Int?

    /// Makes an event, for example to compare with a parsed one in a test.
    ///
    /// ```swift
    /// #expect(events == [ServerSentEvent(event: "update", data: "hi", id: "42")])
    /// ```
    public init(event: String? = nil, data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}
