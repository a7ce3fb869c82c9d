import EndpointRouter
import Foundation

/// The sink a ``RecordingTransport`` hands the transport it wraps: everything goes on to the
/// library's sink first, and a copy of what that sink accepted is kept for the recording.
///
/// Forwarding first means the library's limits and cancellation govern the wrapped transport as
/// if the recorder were not there, and a body the library refused part-way is never written down as
/// if it were the whole answer.
final class TeeSink: ResponseBodySink {
    private struct State {
        var head: HTTPResponseHead?
        var body = Data()
        /// The first error the library's sink threw, in case the wrapped transport swallows it.
        var refusal: HTTPClientError?
    }

    private let destination: any ResponseBodySink
    private let state = Locked(State())

    init(forwardingTo destination: any ResponseBodySink) {
        self.destination = destination
    }

    func receive(_ head: HTTPResponseHead) throws(HTTPClientError) {
        do {
            try destination.receive(head)
        } catch {
            state.withLock { $0.refusal = $0.refusal ?? error }
            throw error
        }
        state.withLock { $0.head = head }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
        do {
            try destination.write(bytes)
        } catch {
            state.withLock { $0.refusal = $0.refusal ?? error }
            throw error
        }
        state.withLock { $0.body.append(contentsOf: bytes) }
    }

    /// The body the library accepted, or the error it refused the response with.
    func recordedBody() throws(HTTPClientError) -> Data {
        try state.withLock { state throws(HTTPClientError) in
            if let refusal = state.refusal { throw refusal }
            return state.body
        }
    }
}
