import AsyncHTTPClient
import EndpointRouter
import Foundation
import NIOCore
import NIOHTTP1

/// A library request as AsyncHTTPClient takes it, and the upload progress of its body.
struct PreparedRequest {
    /// Bodies up to this size go out in one write; larger ones are streamed in pieces of this size,
    /// so a file is never read whole and upload progress moves as it goes.
    static let pieceSize = 64 * 1024

    let request: HTTPClientRequest
    /// An in-memory body sent in one write, whose progress is reported once the answer has come.
    private let singleWriteLength: Int64?
    private let context: CallContext

    init(_ request: EndpointRouter.OutgoingRequest, context: CallContext) throws(EndpointRouter.HTTPClientError) {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        var singleWriteLength: Int64?
        switch request.body {
        case nil:
            break
        case .data(let data) where data.count <= Self.pieceSize:
            outgoing.body = .bytes(data)
            singleWriteLength = Int64(data.count)
        case .data(let data):
            outgoing.body = .stream(
                UploadBody(source: .data(data), length: Int64(data.count), context: context),
                length: .known(Int64(data.count)))
        case .file(let file):
            let length = try Self.length(of: file, for: request.url)
            outgoing.body = .stream(UploadBody(source: .file(file), length: length, context: context), length: .known(length))
        }
        self.request = outgoing
        self.singleWriteLength = singleWriteLength
        self.context = context
    }

    /// Reports a body sent in one write as sent, once the server has answered.
    func reportUploadFinished() {
        if let singleWriteLength, singleWriteLength > 0 {
            context.reportUpload(sentBytes: singleWriteLength, totalBytes: singleWriteLength)
        }
    }

    private static func length(of file: URL, for url: URL) throws(EndpointRouter.HTTPClientError) -> Int64 {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        } catch {
            throw .transport(.fileDoesNotExist, "the request body file \(file.lastPathComponent) cannot be read", url: url)
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? NSNumber else {
            throw .transport(.fileIsDirectory, "the request body \(file.lastPathComponent) is not a regular file", url: url)
        }
        return size.int64Value
    }
}
