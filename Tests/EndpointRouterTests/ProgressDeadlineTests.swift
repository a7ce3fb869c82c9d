import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

extension Serialized {
    /// A progress closure that blocks (here up to 5 s, released once the call returned) does not
    /// hold its call past the call's total deadline: the call waits for the closure's last delivery
    /// only until then. A wall-clock bound, so these run alone.
    @Suite("Progress closures within the call's deadline")
    struct ProgressDeadlineTests {
        typealias BlockingClosure = ProgressDeliveryStateTests.BlockingClosure

        /// What the call returned and how long it took, with what the closure had seen by then; then
        /// releases the closure and checks that nothing was delivered after the call returned.
        static func expectPromptReturn<T: Sendable>(
            of call: Task<Result<T, HTTPClientError>, Never>, started start: ContinuousClock.Instant, closure: BlockingClosure,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async -> Result<T, HTTPClientError>? {
            defer { closure.release() }
            // Bounded beyond the closure's 5 s, so that the old behaviour fails here, not stalls.
            let result = await boundedValue(of: call, within: 8)
            let took = start.duration(to: .now)
            let atReturn = closure.values
            print("ProgressDeadlineTests: the call returned after \(took) with a 0.5 s timeout")
            // The deadline plus the timer's and the scheduler's slack on a loaded 2-core machine;
            // waiting for the closure took 5 s and more.
            #expect(took < .milliseconds(1500), "the call took \(took) with a 0.5 s timeout", sourceLocation: sourceLocation)
            #expect(!atReturn.isEmpty, "the closure was never called", sourceLocation: sourceLocation)
            closure.release()
            #expect(await eventually(within: 5, { !closure.isRunning }), sourceLocation: sourceLocation)
            try? await Task.sleep(for: .milliseconds(200))
            #expect(closure.values == atReturn, "a value was delivered after the call returned", sourceLocation: sourceLocation)
            return result
        }

        @Test func anUploadReturnsByItsDeadlineWhileItsProgressClosureBlocks() async throws {
            let server = try TestServer(bodyStorageLimit: 0, keepsRequests: false) { _ in .json(#"{"ok":true}"#) }
            defer { server.stop() }
            let closure = BlockingClosure()
            let endpoint = TestEndpoint(
                host: server.baseURL, endpoint: "upload", method: .post,
                body: .data(Data(count: 256 * 1024), contentType: "application/octet-stream"), timeout: 0.5)
            let handler = closure.handler
            let start = ContinuousClock.now
            let upload = Task { await endpoint.response(type: Data.self, uploadProgress: handler) }
            let result = await Self.expectPromptReturn(of: upload, started: start, closure: closure)
            // The exchange completed in time: the result stands, only the last value went undelivered.
            #expect((try? result?.get())?.value == Data(#"{"ok":true}"#.utf8), "\(String(describing: result))")
        }

        @Test func aDownloadReturnsByItsDeadlineWhileItsProgressClosureBlocks() async throws {
            let total: Int64 = 256 * 1024
            let server = try TestServer(response: .stream(chunk: 16 * 1024, total: total, interval: 0, announceLength: true))
            defer { server.stop() }
            try await ProgressDeliveryTests.withFolder { folder in
                let closure = BlockingClosure()
                let endpoint = TestEndpoint(host: server.baseURL, endpoint: "big", timeout: 0.5)
                let destination = folder.appendingPathComponent("big.bin")
                let handler = closure.handler
                let start = ContinuousClock.now
                let download = Task { await endpoint.download(to: destination, progress: handler) }
                let result = await Self.expectPromptReturn(of: download, started: start, closure: closure)
                #expect((try? result?.get())?.value == destination, "\(String(describing: result))")
                #expect((try? Data(contentsOf: destination))?.count == Int(total))
            }
        }
    }
}
