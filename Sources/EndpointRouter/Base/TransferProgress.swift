/// How far a transfer has come: reported while a download's body arrives or a request body goes out.
///
/// ```swift
/// let result = await FilesAPI.archive.download(to: destination) { progress in
///     print(progress.fractionCompleted.map { "\(Int($0 * 100)) %" } ?? "\(progress.completedBytes) bytes")
/// }
/// ```
///
/// Reports never go backwards, and the last one of a completed transfer has
/// `completedBytes == expectedBytes` when the size was known.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// The total, when the other side announced it; `nil` when unknown (for example a compressed or
    /// chunked response).
    public var expectedBytes: Int64?

    /// Creates a report.
    public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// `completedBytes / expectedBytes` in `0...1`, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, max(0, Double(completedBytes) / Double(expectedBytes)))
    }
}
