import Foundation

/// Where a transport delivers a response as it arrives: the head once, then the body in pieces.
///
/// The library hands a fresh sink to every exchange. It decides where the body goes (into memory
/// up to the endpoint's `maxResponseSize`, or into a file for a download) and enforces the limits,
/// so every transport gets them right by calling it:
///
/// <!-- snippet: prelude=doc,doc-function -->
/// ```swift
/// try sink.receive(head)                  // may refuse a Content-Length over the limit
/// for try await chunk in body {
///     try chunk.withUnsafeBytes { try sink.write($0) }   // throws once the limit is crossed
/// }
/// ```
///
/// When a call throws, the transport must stop reading, cancel the exchange (closing its connection)
/// and throw that same error. Calls for one exchange must not overlap.
///
/// **Back-pressure.** A transport that can stop reading (one that pulls its body, such as
/// AsyncHTTPClient's) awaits ``waitForDemand()`` before it reads each next piece. A streaming call
/// (`events()`, `lines()`, `bytes()`) then reads no more than its buffer ahead of the consumer. A
/// transport that cannot wait (URLSession pushes its body through delegate callbacks) skips it; a
/// streaming sink then refuses the piece that would pass its buffer with `.responseTooLarge`
/// instead of holding more memory.
public protocol ResponseBodySink: Sendable {
    /// Takes the status line and headers, before any body byte.
    ///
    /// - Throws: `.responseTooLarge` when `Content-Length` announces more than the limit for a
    ///   response that has a body (not a HEAD's, 1xx, 204 or 304: see
    ///   ``ResponseHead/expectedBodyLength(answering:)``); `.cancelled` when the call has
    ///   already ended.
    func receive(_ head: ResponseHead) throws(HTTPClientError)

    /// Takes the next piece of the body (decompressed, when the server used `Content-Encoding`).
    ///
    /// - Throws: `.responseTooLarge` when the body crosses the limit; `.cancelled` when the call has
    ///   already ended; `.transport` when a download cannot be written.
    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError)

    /// Takes the next piece of the body as `Data`, for a transport that has it so (URLSession): a
    /// sink that keeps pieces (a stream's) keeps this one without copying it. By default it is
    /// written as bytes.
    func write(_ data: Data) throws(HTTPClientError)

    /// Returns once the sink has room for more of the body; call it before reading each next piece.
    ///
    /// Sinks that collect a whole body return at once; a streaming call's sink waits while its
    /// buffer is full (the consumer is behind).
    ///
    /// - Throws: `.cancelled` when the call ended (or the calling task was cancelled) while waiting,
    ///   or the error that ended it (`.timedOut` for an idle stream).
    func waitForDemand() async throws(HTTPClientError)
}

extension ResponseBodySink {
    /// A sink that holds the whole body never asks a transport to wait.
    public func waitForDemand() async throws(HTTPClientError) {}

    /// Writes `data` as bytes.
    public func write(_ data: Data) throws(HTTPClientError) {
        try data.withBytes { buffer throws(HTTPClientError) in try write(buffer) }
    }
}
