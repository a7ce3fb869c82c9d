import EndpointRouter
import Testing

/// `fractionCompleted` is what a progress bar shows: nil when the total is unknown, never above 1.
@Suite("TransferProgress.fractionCompleted")
struct TransferProgressTests {
    @Test func unknownOrZeroTotalHasNoFraction() {
        #expect(TransferProgress(completedBytes: 10, expectedBytes: nil).fractionCompleted == nil)
        #expect(TransferProgress(completedBytes: 0, expectedBytes: 0).fractionCompleted == nil)
        #expect(TransferProgress(completedBytes: 5, expectedBytes: -1).fractionCompleted == nil)
    }

    @Test func fractionIsCompletedOverExpectedCappedAtOne() {
        #expect(TransferProgress(completedBytes: 0, expectedBytes: 200).fractionCompleted == 0)
        #expect(TransferProgress(completedBytes: 50, expectedBytes: 200).fractionCompleted == 0.25)
        #expect(TransferProgress(completedBytes: 200, expectedBytes: 200).fractionCompleted == 1)
        // A server that sent more than its Content-Length promised does not show 150 %.
        #expect(TransferProgress(completedBytes: 300, expectedBytes: 200).fractionCompleted == 1)
    }
}
