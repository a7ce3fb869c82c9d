import EndpointRouter
import Foundation
import Testing

/// A call that uploads from a file and downloads to a file never holds either body in memory, yet
/// the metrics and the log still report their sizes, read from the files.
@Suite("Metrics and logging of file bodies")
struct FileBodyAccountingTests {
    @Test func uploadAndDownloadSizesComeFromTheFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("accounting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let upload = folder.appendingPathComponent("upload.bin")
        try Data(repeating: 7, count: 3_000).write(to: upload)
        let target = folder.appendingPathComponent("download.bin")

        let metrics = Locked<[CallMetrics]>([])
        let lines = Locked<[String]>([])
        let transport = ClosureTransport { request in
            IncomingResponse(statusCode: 200, body: Data(repeating: 1, count: 12_345), url: request.url)
        }
        let endpoint = TestEndpoint(
            endpoint: "files/1", method: .put, body: .file(upload, contentType: "application/octet-stream"),
            transport: transport,
            middlewares: [
                CallMetricsMiddleware { report in metrics.withLock { $0.append(report) } },
                LoggingMiddleware(sink: LogSink { _, message, _ in lines.withLock { $0.append(message) } }),
            ])
        let response = try await endpoint.download(to: target).get()
        #expect(try Data(contentsOf: response.value).count == 12_345)

        let report = try #require(metrics.withLock { $0.first })
        #expect(report.bytesSent == 3_000)
        #expect(report.bytesReceived == 12_345)
        #expect(report.outcome == "200")
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged.first?.hasSuffix(", body from file upload.bin") == true, "\(logged)")
        #expect(logged.last?.hasSuffix(", 12345 bytes") == true, "\(logged)")
    }

    @Test func outcomeIsTheStatusTheRejectedStatusTheErrorOrNone() {
        func report(status: Int?, error: HTTPClientError?) -> CallMetrics {
            CallMetrics(
                endpointName: "API.item", method: .get, start: Date(), duration: .zero, statusCode: status,
                error: error, attempts: 1, bytesSent: 0, bytesReceived: 0)
        }
        let rejected = EndpointResponse<Data>(
            value: Data(), statusCode: 503, headers: HeaderFields(), data: Data(),
            request: OutgoingRequest(url: URL(fileURLWithPath: "/")), url: nil)
        #expect(report(status: 204, error: nil).outcome == "204")
        #expect(report(status: nil, error: .unacceptableStatusCode(rejected)).outcome == "503")
        #expect(report(status: nil, error: .timedOut).outcome == "timedOut")
        #expect(report(status: nil, error: nil).outcome == "none")
    }
}
