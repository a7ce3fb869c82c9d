import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

extension Serialized {
    /// Downloads to a file and uploads from a file on the default transport: bytes identical, memory
    /// bounded, progress monotonic, and no file left behind by any failure.
    @Suite("Downloads and uploads", .serialized)
    struct TransferTests {
        static let mebibyte = 1024 * 1024

        /// A fresh, empty folder, removed afterwards.
        static func withFolder(_ body: (URL) async throws -> Void) async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("er-transfer-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await body(folder)
        }

        static func contents(of folder: URL) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        }

        /// One MiB of the server's pattern; the pattern repeats every 256 bytes, so every MiB-aligned
        /// piece of a streamed body equals it.
        static let patternMebibyte: Data = {
            var data = Data(count: mebibyte)
            data.withUnsafeMutableBytes { ScriptedResponse.fillPattern($0, startingAt: 0) }
            return data
        }()

        /// Whether the file holds exactly the server's pattern for `length` bytes, read in pieces.
        static func holdsPattern(_ file: URL, length: Int64) throws -> Bool {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            var offset: Int64 = 0
            while true {
                let piece = handle.readData(ofLength: mebibyte)
                if piece.isEmpty { break }
                guard piece == patternMebibyte.prefix(piece.count) else { return false }
                offset += Int64(piece.count)
            }
            return offset == length
        }

        final class ProgressLog: Sendable {
            let reports = Locked<[TransferProgress]>([])
            var handler: @Sendable (TransferProgress) -> Void { { progress in self.reports.withLock { $0.append(progress) } } }
            var all: [TransferProgress] { reports.withLock { $0 } }
            var isMonotonic: Bool {
                zip(all, all.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }
            }
        }

        @Test func downloadStreamsToTheFileWithBoundedMemory() async throws {
            let length = 100 * Int64(Self.mebibyte)
            let server = try TestServer(response: .stream(total: length, announceLength: true))
            defer { server.stop() }
            try await Self.withFolder { folder in
                let destination = folder.appendingPathComponent("big.bin")
                let progress = ProgressLog()
                await MemorySampler.settle()
                let sampler = MemorySampler()
                sampler.start()
                let result = await TestEndpoint(host: server.baseURL, endpoint: "big", timeout: 60)
                    .download(to: destination, progress: progress.handler)
                let memory = sampler.stop()
                let response = try result.get()
                #expect(response.value == destination)
                #expect(try await offThePool { try Self.holdsPattern(destination, length: length) })
                #expect(
                    memory.peakBytes - memory.baselineBytes <= 32 * Self.mebibyte,
                    "grew \((memory.peakBytes - memory.baselineBytes) / Self.mebibyte) MiB")
                #expect(progress.isMonotonic)
                #expect(progress.all.last == TransferProgress(completedBytes: length, expectedBytes: length))
                #expect(Self.contents(of: folder) == ["big.bin"])
            }
        }

        @Test func notFoundLeavesNoFileAndCarriesTheErrorBody() async throws {
            let server = try TestServer(response: .json(#"{"error":"missing"}"#, status: 404))
            defer { server.stop() }
            try await Self.withFolder { folder in
                let destination = folder.appendingPathComponent("missing.bin")
                let result = await TestEndpoint(host: server.baseURL, endpoint: "missing").download(to: destination)
                guard case .failure(.unacceptableStatusCode(let response)) = result else {
                    Issue.record("expected .unacceptableStatusCode, got \(result)")
                    return
                }
                #expect(response.statusCode == 404)
                #expect(String(decoding: response.data, as: UTF8.self) == #"{"error":"missing"}"#)
                #expect(Self.contents(of: folder).isEmpty)
            }
        }

        @Test func cancelHalfwayLeavesNoFileAndKeepsTheOldOne() async throws {
            let length = 200 * Int64(Self.mebibyte)
            let server = try TestServer(response: .stream(total: length, interval: 0.001, announceLength: true))
            defer { server.stop() }
            try await Self.withFolder { folder in
                let destination = folder.appendingPathComponent("file.bin")
                try Data("old".utf8).write(to: destination)
                let progress = ProgressLog()
                let host = server.baseURL
                let task = Task {
                    await TestEndpoint(host: host, endpoint: "big", timeout: 60).download(to: destination, progress: progress.handler)
                }
                let limit = ContinuousClock.now + .seconds(20)
                while (progress.all.last?.completedBytes ?? 0) < length / 20 && ContinuousClock.now < limit {
                    try await Task.sleep(nanoseconds: 5_000_000)
                }
                task.cancel()
                #expect(await task.value.failure == .cancelled)
                #expect(Self.contents(of: folder) == ["file.bin"])
                #expect(try Data(contentsOf: destination) == Data("old".utf8))
            }
        }

        @Test func timeoutLeavesNoFile() async throws {
            let server = try TestServer(response: .stream())
            defer { server.stop() }
            try await Self.withFolder { folder in
                let result = await TestEndpoint(host: server.baseURL, endpoint: "endless", timeout: 0.5)
                    .download(to: folder.appendingPathComponent("endless.bin"))
                #expect(result.failure == .timedOut)
                // The transfer may still be winding down; the call's files are gone at once.
                #expect(Self.contents(of: folder).isEmpty)
            }
        }

        @Test func missingFolderFailsWithATypedError() async throws {
            let server = try TestServer(response: .text("hello"))
            defer { server.stop() }
            let destination = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file.txt")
            let result = await TestEndpoint(host: server.baseURL, endpoint: "x").download(to: destination)
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected .transport, got \(result)")
                return
            }
            #expect(error.code == .cannotCreateFile)
        }

        @Test func uploadStreamsFromTheFile() async throws {
            let length = 100 * Self.mebibyte
            let server = try TestServer(bodyStorageLimit: Self.mebibyte) { _ in .status(204) }
            defer { server.stop() }
            try await Self.withFolder { folder in
                let file = folder.appendingPathComponent("upload.bin")
                let expected = try await offThePool {
                    var hasher = SHA256()
                    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
                    let handle = try FileHandle(forWritingTo: file)
                    for _ in 0..<(length / Self.mebibyte) {
                        hasher.update(Self.patternMebibyte)
                        handle.write(Self.patternMebibyte)
                    }
                    try handle.close()
                    return hasher.hex
                }

                let progress = ProgressLog()
                await MemorySampler.settle()
                let sampler = MemorySampler()
                sampler.start()
                let result = await TestEndpoint(
                    host: server.baseURL, endpoint: "upload", method: .put,
                    body: .file(file, contentType: "application/octet-stream"), timeout: 60
                )
                .response(type: EmptyResponse.self, uploadProgress: progress.handler).map(\.value)
                let memory = sampler.stop()
                #expect(result == .success(EmptyResponse()))
                let received = try #require(server.requests.last)
                #expect(received.bodyLength == Int64(length))
                #expect(received.bodySHA256Hex == expected)
                // One framing only. URLSessionTransport on Linux sends the file as a body stream,
                // chunked (see URLSessionTransport.streamingTask); the default transport there,
                // CurlTransport, sends its length. Both headers at once would be a smuggling shape.
                #if canImport(FoundationNetworking)
                    if DefaultTransport.shared is URLSessionTransport {
                        #expect(received.header("Transfer-Encoding") == "chunked")
                        #expect(received.header("Content-Length") == nil)
                    } else {
                        #expect(received.header("Content-Length") == String(length))
                        #expect(received.header("Transfer-Encoding") == nil)
                    }
                #else
                    #expect(received.header("Content-Length") == String(length))
                #endif
                #expect(
                    memory.peakBytes - memory.baselineBytes <= 32 * Self.mebibyte,
                    "grew \((memory.peakBytes - memory.baselineBytes) / Self.mebibyte) MiB")
                #expect(progress.isMonotonic)
                #expect(progress.all.last?.completedBytes == Int64(length))
                #expect(progress.all.allSatisfy { $0.expectedBytes == Int64(length) }, "\(progress.all.prefix(3))")
            }
        }
    }
}
