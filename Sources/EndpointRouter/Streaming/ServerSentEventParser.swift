import Foundation
// PLACEHOLDER (replaced by the sse-parser branch)
public struct ServerSentEventParser: Sendable {
    var line: [UInt8] = []
    var data = ""
    var type = ""
    var retryValue: Int?
    var lastCR = false
    let maxEventSize: Int?
    public private(set) var lastEventID = ""
    public private(set) var reconnectionTime: Int?
    public init(maxEventSize: Int? = 1_048_576) { self.maxEventSize = maxEventSize }
    public mutating func parse(_ input: Data) throws(HTTPClientError) -> [ServerSentEvent] {
        var out: [ServerSentEvent] = []
        for byte in input {
            if byte == 10 && lastCR { lastCR = false; continue }
            lastCR = byte == 13
            if byte == 10 || byte == 13 { process(&out); line = []; continue }
            line.append(byte)
            if let m = maxEventSize, line.count + data.utf8.count > m { throw .responseTooLarge(limit: m) }
        }
        return out
    }
    mutating func process(_ out: inout [ServerSentEvent]) {
        let text = String(decoding: line, as: UTF8.self)
        if text.isEmpty {
            if !data.isEmpty { data.removeLast(); out.append(ServerSentEvent(event: type.isEmpty ? nil : type, data: data, id: lastEventID.isEmpty ? nil : lastEventID, retry: retryValue)) }
            data = ""; type = ""; retryValue = nil
            return
        }
        if text.hasPrefix(":") { return }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        var value = parts.count > 1 ? String(parts[1]) : ""
        if value.hasPrefix(" ") { value.removeFirst() }
        switch parts[0] {
        case "data": data += value + "\n"
        case "event": type = value
        case "id": if !value.contains("\0") { lastEventID = value }
        case "retry": if let v = Int(value), v >= 0 { reconnectionTime = v; retryValue = v }
        default: break
        }
    }
    public mutating func finishStream() { line = []; data = ""; type = ""; lastCR = false }
}
