// PLACEHOLDER (replaced by the sse-parser branch)
public struct ServerSentEvent: Sendable, Hashable {
    public var event: String?
    public var data: String
    public var id: String?
    public var retry: Int?
    public init(event: String? = nil, data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event; self.data = data; self.id = id; self.retry = retry
    }
}
