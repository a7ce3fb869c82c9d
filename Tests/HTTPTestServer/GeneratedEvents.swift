import Foundation

/// A Server-Sent Events body the server generates while sending, so tests can serve a hundred
/// thousand events, or an endless stream, without holding it in memory.
///
/// Event `N` goes on the wire as `id: N\ndata: <payload(for: N)>\n\n`, so a client can check that
/// it received every event once, in order, with the right data. Events are formatted straight into
/// a byte buffer and sent in batches of about ``batchBytes`` (one event per write when ``interval``
/// is set), which keeps 100,000 events to a few seconds even in a debug build.
///
/// Serve it with ``ScriptedResponse/events(_:resumingFrom:status:headers:closeDelimited:)``, which
/// resumes after the request's `Last-Event-ID`. Framing follows ``StreamedBody``: chunked for an
/// HTTP/1.1 request, close-delimited with `closeDelimited`.
public struct GeneratedEvents: Sendable, Equatable {
    /// The id of the first event sent on a connection.
    public var firstID: Int
    /// The id of the last event; `nil` for an endless stream (until the client goes away or the
    /// server stops).
    public var lastID: Int?
    /// Events per connection after which the server closes the connection abruptly: no
    /// terminating chunk, so the client sees a lost connection (when close-delimited, the close
    /// ends the body). `nil` never drops.
    public var dropAfter: Int?
    /// Seconds to pause between events (each event then goes out in a write of its own); `stop()`
    /// or the client closing cuts the pause short.
    public var interval: TimeInterval
    /// Bytes of filler appended to every payload, to make events as large as a test needs.
    public var padding: Int
    /// The size a batch of events grows to before it is written.
    public var batchBytes: Int

    /// Describes a generated event stream; see the properties for each parameter.
    public init(
        firstID: Int = 1, lastID: Int? = nil, dropAfter: Int? = nil, interval: TimeInterval = 0, padding: Int = 0,
        batchBytes: Int = 64 * 1024
    ) {
        self.firstID = firstID
        self.lastID = lastID
        self.dropAfter = dropAfter
        self.interval = interval
        self.padding = padding
        self.batchBytes = batchBytes
    }

    /// The `data` of event `id` with `padding` filler bytes: `payload <id>` then `padding` dots.
    public static func payload(for id: Int, padding: Int = 0) -> String {
        "payload \(id)" + String(repeating: ".", count: max(0, padding))
    }

    /// The data of event `id` in this stream.
    public func payload(for id: Int) -> String {
        Self.payload(for: id, padding: padding)
    }

    /// The id of the last event the server sends on a connection that starts at ``firstID``:
    /// the earlier of ``lastID`` and the drop; `nil` for endless.
    var lastIDOnThisConnection: Int? {
        let dropID = dropAfter.map { firstID + max(0, $0) - 1 }
        switch (lastID, dropID) {
        case (let last?, let drop?): return min(last, drop)
        case (let last, let drop): return last ?? drop
        }
    }

    /// Writes the events after the head through the given closures (the connection's send, pause
    /// and byte counting). Returns `true` when the stream is complete (the terminating chunk is
    /// out), `false` when the client went away, the server stopped or the script drops the
    /// connection here — in every `false` case the caller closes the connection.
    func write(
        chunked: Bool, transmit: (UnsafeRawBufferPointer) -> Bool, pause: (TimeInterval) -> Bool, countBodyBytes: (Int) -> Void
    ) -> Bool {
        let end = lastIDOnThisConnection
        let budget = interval > 0 ? 1 : max(1, batchBytes)
        let filler = [UInt8](repeating: UInt8(ascii: "."), count: max(0, padding))
        var body: [UInt8] = []
        body.reserveCapacity(budget + 64 + filler.count)
        var framed: [UInt8] = []
        var id = firstID
        while end.map({ id <= $0 }) ?? true {
            if id > firstID && interval > 0 {
                guard pause(interval) else { return false }
            }
            body.removeAll(keepingCapacity: true)
            while body.count < budget, end.map({ id <= $0 }) ?? true {
                Self.appendEvent(id, filler: filler, to: &body)
                id += 1
            }
            let sent: Bool
            if chunked {
                framed.removeAll(keepingCapacity: true)
                framed.append(contentsOf: (String(body.count, radix: 16) + "\r\n").utf8)
                framed.append(contentsOf: body)
                framed.append(contentsOf: [0x0D, 0x0A])
                sent = framed.withUnsafeBytes { transmit($0) }
            } else {
                sent = body.withUnsafeBytes { transmit($0) }
            }
            guard sent else { return false }
            countBodyBytes(body.count)
        }
        // Stopped by the drop rather than by the last event: close without finishing the body.
        if dropAfter != nil && end != lastID { return false }
        if chunked {
            return Array("0\r\n\r\n".utf8).withUnsafeBytes { transmit($0) }
        }
        return true
    }

    /// Appends `id: N\ndata: payload N<filler>\n\n` without going through `String`, which is what
    /// keeps the generator fast in unoptimised builds.
    static func appendEvent(_ id: Int, filler: [UInt8], to buffer: inout [UInt8]) {
        buffer.append(contentsOf: [UInt8(ascii: "i"), UInt8(ascii: "d"), UInt8(ascii: ":"), UInt8(ascii: " ")])
        appendDecimal(id, to: &buffer)
        buffer.append(contentsOf: Self.dataPrefix)
        appendDecimal(id, to: &buffer)
        buffer.append(contentsOf: filler)
        buffer.append(contentsOf: [0x0A, 0x0A])
    }

    /// `\ndata: payload ` — what comes between the id and the number in the data.
    private static let dataPrefix = Array("\ndata: payload ".utf8)

    /// Appends the decimal digits of `value` (negative values with a minus sign).
    static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        // The largest power of ten not above the value gives the first digit; then each smaller one.
        var divisor: UInt = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        repeat {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }
}

extension ScriptedResponse {
    /// A `text/event-stream` response generating `events` (see ``GeneratedEvents``), resumed after
    /// the `Last-Event-ID` of `request` when it carries a number: the stream then starts at that id
    /// plus one, as a client reconnecting expects. Once a finite stream has nothing left to send,
    /// the answer is `204 No Content`, the standard's way of telling a client to stop reconnecting.
    ///
    /// - Parameters:
    ///   - closeDelimited: write the events raw and end the body by closing the connection, instead
    ///     of chunked framing.
    public static func events(
        _ events: GeneratedEvents, resumingFrom request: RecordedRequest? = nil, status: Int = 200,
        headers: [(name: String, value: String)] = [], closeDelimited: Bool = false
    ) -> ScriptedResponse {
        var events = events
        if let resumeAfter = request?.header("Last-Event-ID").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            events.firstID = resumeAfter + 1
        }
        if let lastID = events.lastID, events.firstID > lastID {
            return ScriptedResponse(status: 204)
        }
        var response = ScriptedResponse(
            status: status, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")] + headers,
            behavior: closeDelimited ? .closeDelimited : .normal)
        var body = StreamedBody()
        body.events = events
        response.streamedBody = body
        return response
    }
}
