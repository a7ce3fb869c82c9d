/// Forwards transfer progress to a caller's closure, never backwards: a retried attempt or a
/// redirect hop starts counting from zero again, and the caller must not see the bar jump back.
package final class ProgressReporter: Sendable {
    private let handler: @Sendable (TransferProgress) -> Void
    private let last = Locked<TransferProgress?>(nil)

    package init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
    }

    /// Passes `progress` on when it moves forward (or first learns the total).
    package func report(_ progress: TransferProgress) {
        let forward = last.withLock { last -> Bool in
            if let previous = last,
                progress.completedBytes < previous.completedBytes
                    || (progress.completedBytes == previous.completedBytes && progress.expectedBytes == previous.expectedBytes)
            {
                return false
            }
            last = progress
            return true
        }
        if forward { handler(progress) }
    }
}
