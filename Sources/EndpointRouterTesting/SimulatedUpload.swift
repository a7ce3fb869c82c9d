import EndpointRouter
import Foundation

/// The upload progress a testing transport reports for a request body, as a network transport
/// reports it while the body goes out.
///
/// A stub or a replay never sends the body anywhere, but a caller's progress closure (an upload
/// UI) must see what it would see in production: `CurlTransport` and `URLSessionTransport` report
/// through ``CallContext/reportUpload(sentBytes:totalBytes:)`` as each piece is written, the bytes
/// sent growing to the whole body, with the total known up front for in-memory bodies and files.
/// So this reports one value per piece of ``BodyDelivery/pieceSize`` (the size of one response
/// piece too), and lets other tasks run between pieces, so a closure watching in real time can see
/// the progress move rather than only its end.
enum SimulatedUpload {
    /// Reports `body` going out, piece by piece, through `context`.
    ///
    /// An in-memory body counts its bytes; a file body counts its size on disk without reading the
    /// file (a stub never reads it). A body of no bytes reports nothing, as `URLSessionTransport`,
    /// which is told of no body data sent when there is none (`CurlTransport` reports 0 of 0 once),
    /// and so does a file whose size reads as 0 or cannot be read: finding out what it holds would
    /// mean reading it.
    ///
    /// - Throws: `.cancelled` when the task is cancelled between pieces.
    static func send(_ body: OutgoingRequest.Body?, context: CallContext) async throws(HTTPClientError) {
        let length: Int64
        switch body {
        case .none:
            return
        case .data(let data):
            length = Int64(data.count)
        case .file(let url):
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
            length = size ?? 0
        }
        guard length > 0 else { return }
        let piece = Int64(BodyDelivery.pieceSize)
        var sent: Int64 = 0
        while sent < length {
            if sent > 0 { await Task.yield() }
            // After the yield, not before it: the task that runs meanwhile may cancel the call, and a
            // cancelled call's closure must see no more of the body go out.
            if Task.isCancelled { throw .cancelled }
            sent = min(length, sent + piece)
            context.reportUpload(sentBytes: sent, totalBytes: length)
        }
    }
}
