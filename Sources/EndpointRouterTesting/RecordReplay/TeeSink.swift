import EndpointRouter
import Foundation

/// The sink a ``RecordingTransport`` hands the transport it wraps: everything goes on to the
/// library's sink first, and a copy of what that sink accepted is kept for the recording.
///
/// Forwarding first means the library's limits and cancellation govern the wrapped transport as
/// if the recorder were not there, and a body the library refused part-way is never written down as
/// if it were the whole answer. Demand is forwarded too: a streaming call's consumer holds the
/// wrapped transport back through the recorder, and each piece reaches the consumer as it arrives,
/// not when the body ends.
final class TeeSink: ResponseBodySink {
    private struct State {
        var head: ResponseHead?
        var body = Data()
        /// The first error the library's sink threw, in case the wrapped transport swallows it.
        var refusal: HTTPClientError?
        var chunks: [RecordedChunk] = []
        /// When the head or the last piece passed.
        var lastArrival = ContinuousClock.now
        /// Time spent waiting for the consumer since then, which is not the server's pace.
        var waited = Duration.zero
    }

    private let destination: any ResponseBodySink
    private let timesChunks: Bool
    private let state = Locked(State())

    /// - Parameter timesChunks: whether to note each piece's size and the time before it.
    init(forwardingTo destination: any ResponseBodySink, timesChunks: Bool = false) {
        self.destination = destination
        self.timesChunks = timesChunks
    }

    func receive(_ head: ResponseHead) throws(HTTPClientError) {
        do {
            try destination.receive(head)
        } catch {
            state.withLock { $0.refusal = $0.refusal ?? error }
            throw error
        }
        state.withLock { state in
            state.head = head
            state.lastArrival = .now
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        do {
            try destination.write(bytes)
        } catch {
            state.withLock { $0.refusal = $0.refusal ?? error }
            throw error
        }
        let now = ContinuousClock.now
        state.withLock { state in
            state.body.append(contentsOf: bytes)
            if timesChunks {
                let delay = max(.zero, now - state.lastArrival - state.waited)
                state.chunks.append(RecordedChunk(size: bytes.count, delay: Self.seconds(delay)))
            }
            state.lastArrival = now
            state.waited = .zero
        }
    }

    func waitForDemand() async throws(HTTPClientError) {
        let start = ContinuousClock.now
        do {
            try await destination.waitForDemand()
        } catch {
            state.withLock { $0.refusal = $0.refusal ?? error }
            throw error
        }
        let waited = ContinuousClock.now - start
        state.withLock { $0.waited += waited }
    }

    /// The body the library accepted, or the error it refused the response with.
    func recordedBody() throws(HTTPClientError) -> Data {
        try state.withLock { state throws(HTTPClientError) in
            if let refusal = state.refusal { throw refusal }
            return state.body
        }
    }

    /// The pieces' sizes and timing, when they were timed.
    var recordedChunks: [RecordedChunk]? {
        timesChunks ? state.withLock { $0.chunks } : nil
    }

    /// What a consumer that left early had been given: the head and the body so far, unless the
    /// library refused the response for another reason than the call ending (too large, say).
    func cutRecording() -> (head: ResponseHead, body: Data)? {
        state.withLock { state in
            guard let head = state.head, state.refusal == nil || state.refusal == .cancelled else { return nil }
            return (head, state.body)
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
