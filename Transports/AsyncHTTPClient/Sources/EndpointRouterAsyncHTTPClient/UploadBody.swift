import EndpointRouter
import Foundation
import NIOCore

/// A request body handed to AsyncHTTPClient piece by piece, as it asks for them: a file is read
/// while it is sent, never whole, and every piece taken reports the bytes before it as sent.
struct UploadBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    enum Source: Sendable {
        case data(Data)
        case file(URL)
    }

    let source: Source
    let length: Int64
    let context: CallContext

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        let body: UploadBody
        private var offset: Int64 = 0
        private var file: FileReader?

        init(body: UploadBody) {
            self.body = body
        }

        mutating func next() async throws -> ByteBuffer? {
            // AsyncHTTPClient asks for a piece once the one before it is written.
            body.context.reportUpload(sentBytes: offset, totalBytes: body.length)
            guard offset < body.length else { return nil }
            let count = Int(Swift.min(Int64(PreparedRequest.pieceSize), body.length - offset))
            let piece: ByteBuffer
            switch body.source {
            case .data(let data):
                let start = data.startIndex + Int(offset)
                piece = ByteBuffer(bytes: data[start..<start + count])
            case .file(let url):
                if file == nil { file = try FileReader(url) }
                guard let bytes = try file?.read(count), !bytes.isEmpty else {
                    throw HTTPClientError.transport(
                        .cannotOpenFile,
                        "the request body file \(url.lastPathComponent) "
                            + "ended after \(offset) of its \(body.length) bytes")
                }
                piece = ByteBuffer(bytes: bytes)
            }
            offset += Int64(piece.readableBytes)
            return piece
        }
    }

    /// An open file that closes itself when the upload ends, however it ends.
    final class FileReader {
        private let handle: FileHandle

        init(_ url: URL) throws(HTTPClientError) {
            do {
                handle = try FileHandle(forReadingFrom: url)
            } catch {
                throw .transport(.cannotOpenFile, "the request body file \(url.lastPathComponent) cannot be opened")
            }
        }

        func read(_ count: Int) throws(HTTPClientError) -> Data {
            do {
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw .transport(.cannotOpenFile, "the request body file could not be read: \(error.localizedDescription)")
            }
        }

        deinit {
            try? handle.close()
        }
    }
}
