import Foundation
import Testing

@testable import EndpointRouter
@testable import EndpointRouterTesting

/// `SimulatedUpload` lets other tasks run between pieces; one of them may cancel the call, and a
/// cancelled call's progress closure must not see the body go on.
@Suite("Simulated upload")
struct SimulatedUploadTests {
    /// Runs its tasks' jobs one at a time in the order they were enqueued, so that the test decides
    /// which task runs while the upload waits between pieces, rather than the global pool's threads.
    final class QueueExecutor: TaskExecutor {
        let queue: DispatchQueue

        init(_ queue: DispatchQueue) { self.queue = queue }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    @Test func aCallCancelledBetweenPiecesReportsNothingAfter() async throws {
        let piece = Int64(BodyDelivery.pieceSize)
        let body = OutgoingRequest.Body.data(payload(3 * BodyDelivery.pieceSize))
        let delivered = Locked<[TransferProgress]>([])
        let reporter = ProgressReporter { progress in delivered.withLock { $0.append(progress) } }
        let context = CallContext(
            name: .known("upload"), attempt: 1, deadline: .now + .seconds(15), options: EndpointOptions(), uploadProgress: reporter)
        // Held until both tasks are enqueued: the upload reports its first piece and waits between
        // pieces, and the canceller, enqueued behind it, runs in that wait.
        let queue = DispatchQueue(label: "SimulatedUploadTests")
        queue.suspend()
        let executor = QueueExecutor(queue)
        let upload = Task(executorPreference: executor) { () async -> HTTPClientError? in
            do throws(HTTPClientError) {
                try await SimulatedUpload.send(body, context: context)
                return nil
            } catch {
                return error
            }
        }
        let canceller = Task(executorPreference: executor) { upload.cancel() }
        queue.resume()
        let outcome = try #require(await bounded { await upload.value })
        await canceller.value
        guard case .cancelled? = outcome else {
            Issue.record("the upload was not cancelled: \(String(describing: outcome))")
            return
        }
        // Delivers the newest value reported, were it reported after the cancellation.
        await reporter.finish(deliveringLast: true, by: .now + .seconds(5))
        #expect(delivered.withLock { $0 } == [TransferProgress(completedBytes: piece, expectedBytes: 3 * piece)])
    }
}
