import EndpointRouter
import Foundation

/// The progress reports of one upload or download, collected to be summarised once it ends.
final class ProgressLog: @unchecked Sendable {
    // A lock rather than an actor: the progress closure is synchronous (the library calls it on a
    // Dispatch queue, not in a task), so it cannot await an actor.
    private let lock = NSLock()
    private var reports: [TransferProgress] = []

    /// Pass this as the call's `progress:`.
    var record: @Sendable (TransferProgress) -> Void {
        { [self] progress in lock.withLock { reports.append(progress) } }
    }

    var last: TransferProgress? { lock.withLock { reports.last } }

    /// "2 reports, last 16384 of 16384 bytes (100%)".
    var summary: String {
        let (count, last) = lock.withLock { (reports.count, reports.last) }
        guard let last else { return "no progress reported" }
        let total = last.expectedBytes.map { " of \($0)" } ?? ""
        let percent = last.fractionCompleted.map { " (\(Int(($0 * 100).rounded()))%)" } ?? ""
        return "\(count) report\(count == 1 ? "" : "s"), last \(last.completedBytes)\(total) bytes\(percent)"
    }
}
