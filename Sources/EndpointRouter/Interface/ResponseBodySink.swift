import Foundation

/// Where a transport delivers a response as it arrives: the head once, then the body in pieces.
///
/// The library hands a fresh sink to every exchange. It decides where the body goes (into memory
/// up to the endpoint's `maxResponseSize`, or into a file for a download) and enforces the limits,
/// so every transport gets them right by calling it:
///
/// ```swift
/// try sink.receive(head)                  // may refuse a Content-Length over the limit
/// for try await chunk in body {
///     try chunk.withUnsafeBytes { try sink.write($0) }   // throws once the limit is crossed
/// }
/// ```
///
/// When a call throws, the transport must stop reading, cancel the exchange (closing its connection)
/// and throw that same error. Calls for one exchange must not overlap.
public protocol ResponseBodySink: Sendable {
    /// Takes the status line and headers, before any body byte.
    ///
    /// - Throws: `.responseTooLarge` when `Content-Length` announces more than the limit;
    ///   `.cancelled` when the call has already ended.
    func receive(_ head: HTTPResponseHead) throws(HTTPClientError)

    /// Takes the next piece of the body (decompressed, when the server used `Content-Encoding`).
    ///
    /// - Throws: `.responseTooLarge` when the body crosses the limit; `.cancelled` when the call has
    ///   already ended; `.transport` when a download cannot be written.
    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError)
}

extension ResponseBodySink {
    /// Takes the next piece of the body from `Data`.
    public func write(_ data: Data) throws(HTTPClientError) {
        do {
            try data.withUnsafeBytes { buffer in try write(buffer) }
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw .transport(.unknown, "the response body could not be written: \(error.localizedDescription)")
        }
    }
}
