import EndpointRouter
import Foundation

/// Hands a whole response to the library's sink the way a network transport does: the head, then
/// the body in pieces.
///
/// Pieces rather than one write, so that with a testing transport the library's size limit stops a
/// body part-way as it would a real one, a download's progress moves, and cancellation is noticed
/// between pieces. Before each piece it awaits the sink's demand, as a transport that pulls its body
/// does: a streaming call's slow consumer holds a stub back instead of making it fail with
/// `.responseTooLarge`, so tests see the back-pressure production has.
enum BodyDelivery {
    /// The size of one piece, about what one socket read yields.
    static let pieceSize = 64 * 1024

    /// Delivers `head` and `body` into `sink`.
    ///
    /// - Throws: what the sink throws (the call is over or the body is too large), at once and
    ///   without writing further; `.cancelled` when the task is cancelled between pieces.
    static func deliver(_ head: ResponseHead, body: Data, into sink: any ResponseBodySink) async throws(HTTPClientError) {
        if Task.isCancelled { throw .cancelled }
        try sink.receive(head)
        try await write(body, into: sink)
    }

    /// Writes `body` into `sink` in pieces of at most ``pieceSize``, each after the sink's demand.
    ///
    /// - Throws: what the sink throws; `.cancelled` when the task is cancelled between pieces.
    static func write(_ body: Data, into sink: any ResponseBodySink) async throws(HTTPClientError) {
        var start = body.startIndex
        while start < body.endIndex {
            try await sink.waitForDemand()
            if Task.isCancelled { throw .cancelled }
            let end = body.index(start, offsetBy: pieceSize, limitedBy: body.endIndex) ?? body.endIndex
            try sink.write(body[start..<end])
            start = end
        }
    }
}
