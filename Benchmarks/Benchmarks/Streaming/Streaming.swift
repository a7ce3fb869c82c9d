// Issue 14: streaming responses. Events per second through the library's `events()` against the
// loop a user writes by hand on the same transport, and the Server-Sent Events parser alone.
//
//   stream/events/library-urlsession  `for try await event in SSEOnURLSession.events.events()`
//   stream/events/raw-urlsession      a URLSession data task with a delegate of its own
//   stream/events/library-ahc         the same library call on AsyncHTTPClientTransport
//   stream/events/raw-ahc             AsyncHTTPClient `execute` + `for try await buffer in response.body`
//   stream/events/library-curl        the same library call on CurlTransport (issue 23)
//   stream/events/raw-curl            a raw libcurl multi loop (`RawLibcurl`), pieces split in its
//                                     write callback on the loop thread
//   stream/parser                     ServerSentEventParser on the fixture in memory, 16 KiB at a time
//
// One iteration is one whole stream of `/events.sse` (100,000 events, ~13.5 MB, from `nginx.sh`),
// so events per second = 100,000 ÷ the time of an iteration, and library ÷ raw throughput = raw
// time ÷ library time (`aggregate.py`). Every side produces each event's data as a `String` and
// counts the events; a count other than the fixture's ends the benchmark loudly, since a stream
// that stopped early would measure nothing.
import AsyncHTTPClient
import Benchmark
import BenchmarkFixtures
import EndpointRouter
import EndpointRouterAsyncHTTPClient
import Foundation
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Events in `/events.sse` (nginx.sh's generator).
let fixtureEvents = 100_000
let fixturePath = "events.sse"

/// The library's limits for these streams. The buffer is larger than the default 1 MiB because
/// URLSession cannot pause a transfer: from a local nginx the whole 13.5 MB arrives faster than any
/// consumer parses it, and the library (rightly) fails a stream whose consumer falls more than
/// `bufferSize` behind. The hand-written URLSession delegate has no bound at all, so a bound larger
/// than the fixture keeps the comparison about the work per event. AsyncHTTPClient waits for demand,
/// so the same limits change nothing there but are passed for symmetry.
let streamLimits = StreamLimits(bufferSize: 64 * 1024 * 1024)

/// `/events.sse` on URLSessionTransport.shared (named: on Linux the default is CurlTransport).
enum SSEOnURLSession: EndpointRouter.HTTPClient {
    case events
    var host: String { benchmarkBaseURL }
    var endpoint: String { fixturePath }
    var transport: any HTTPTransport { URLSessionTransport.shared }
}

/// The same endpoint on CurlTransport (the benchmarks' own, default configuration).
enum SSEOnCurl: EndpointRouter.HTTPClient {
    case events
    var host: String { benchmarkBaseURL }
    var endpoint: String { fixturePath }
    var transport: any HTTPTransport { benchmarkCurlTransport }
}

/// The same endpoint on the AsyncHTTPClient transport (its own client, as `AHCTransport` uses it).
enum SSEOnAHC: EndpointRouter.HTTPClient {
    case events
    static let transport = AsyncHTTPClientTransport()
    var host: String { benchmarkBaseURL }
    var endpoint: String { fixturePath }
    var transport: any HTTPTransport { Self.transport }
}

/// Counts the events of one library stream, keeping each event's data alive until the next.
func libraryStream<Endpoint: EndpointRouter.HTTPClient>(_ endpoint: Endpoint) async -> Int {
    var count = 0
    do {
        for try await event in endpoint.events(limits: streamLimits) {
            blackHole(event.data)
            count += 1
        }
    } catch {
        fail("library stream", error)
    }
    return count
}

/// What a user writes by hand for SSE without a library: accumulate the bytes, cut the buffer at
/// each "\n\n", and take the text after "data:" of each block's data lines as the event's data.
/// (Only what this fixture needs: LF line ends, one data line, no comments or CR; the library's
/// parser does the whole format, which is part of what the ratio shows.)
struct HandSplitter {
    private var buffer: [UInt8] = []
    private(set) var events = 0

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        var start = 0
        var index = 0
        let end = buffer.count
        buffer.withUnsafeBufferPointer { buffer in
            // Scans for "\n\n" once, over bytes not scanned before except the last byte (a
            // piece may end between the two LFs).
            while index + 1 < end {
                if buffer[index] == 0x0A && buffer[index + 1] == 0x0A {
                    event(UnsafeBufferPointer(rebasing: buffer[start..<index]))
                    index += 2
                    start = index
                } else {
                    index += 1
                }
            }
        }
        buffer.removeSubrange(0..<start)
    }

    /// One event block, without its blank line: its `data:` lines joined by "\n".
    private mutating func event(_ block: UnsafeBufferPointer<UInt8>) {
        var data: String?
        var lineStart = 0
        while lineStart <= block.count {
            let lineEnd = block[lineStart...].firstIndex(of: 0x0A) ?? block.count
            let line = UnsafeBufferPointer(rebasing: block[lineStart..<lineEnd])
            if line.count >= 5, line[0] == 0x64, line[1] == 0x61, line[2] == 0x74, line[3] == 0x61, line[4] == 0x3A {  // "data:"
                var value = line.count > 5 && line[5] == 0x20 ? 6 : 5
                value = min(value, line.count)
                let text = String(decoding: UnsafeBufferPointer(rebasing: line[value...]), as: UTF8.self)
                data = data.map { $0 + "\n" + text } ?? text
            }
            lineStart = lineEnd + 1
        }
        if let data {
            blackHole(data)
            events += 1
        }
    }
}

/// The hand-written URLSession side: one session with a delegate for the process, as a user keeps
/// one; the delegate's queue is URLSession's default serial queue (the library's transport uses the
/// same), so the splitter needs no lock. One stream at a time.
final class RawURLSessionStream: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    static let shared = RawURLSessionStream()

    private var session: URLSession!
    private var splitter = HandSplitter()
    private var continuation: CheckedContinuation<Int, any Error>?
    private var status = 0

    override init() {
        super.init()
        session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    }

    /// Streams `/events.sse` and returns its event count.
    func run() async throws -> Int {
        guard let url = URL(string: "\(benchmarkBaseURL)/\(fixturePath)") else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        return try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            self.splitter = HandSplitter()
            session.dataTask(with: request).resume()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        data.withUnsafeBytes { splitter.append($0) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = self.continuation
        self.continuation = nil
        if let error {
            continuation?.resume(throwing: error)
        } else if status != 200 {
            continuation?.resume(throwing: URLError(.badServerResponse))
        } else {
            continuation?.resume(returning: splitter.events)
        }
    }
}

/// The hand-written AsyncHTTPClient side: `HTTPClient.shared.execute`, then the body's buffers
/// through the same splitter.
func rawAHCStream() async throws -> Int {
    var request = HTTPClientRequest(url: "\(benchmarkBaseURL)/\(fixturePath)")
    request.headers.add(name: "Accept", value: "text/event-stream")
    let response = try await AsyncHTTPClient.HTTPClient.shared.execute(request, timeout: .seconds(60))
    guard response.status == .ok else { throw URLError(.badServerResponse) }
    var splitter = HandSplitter()
    for try await buffer in response.body {
        buffer.withUnsafeReadableBytes { splitter.append($0) }
    }
    return splitter.events
}

/// The hand-written libcurl side: the raw multi loop of the end-to-end baseline, the body's pieces
/// through the same splitter in libcurl's write callback (on the loop thread; the count is read after
/// the transfer's end resumed the caller).
func rawCurlStream() async throws -> Int {
    guard let loop = RawLibcurl.shared else { throw URLError(.cannotLoadFromNetwork) }
    final class Splitting: @unchecked Sendable { var splitter = HandSplitter() }
    let splitting = Splitting()
    let (status, _) = try await loop.perform(
        url: "\(benchmarkBaseURL)/\(fixturePath)", headers: ["Accept: text/event-stream"],
        receive: { splitting.splitter.append($0) })
    guard status == 200 else { throw URLError(.badServerResponse) }
    return splitting.splitter.events
}

/// The fixture's bytes for the parser benchmark, cut into the 16 KiB pieces a transport delivers.
/// Downloaded once from nginx so that the parser reads exactly what the streams carry.
let fixturePieces: [Data] = {
    let semaphore = DispatchSemaphore(value: 0)
    let body = LockedBox<Result<Data, any Error>>()
    guard let url = URL(string: "\(benchmarkBaseURL)/\(fixturePath)") else { fail("fixture URL", URLError(.badURL)) }
    URLSession.shared.dataTask(with: url) { data, _, error in
        body.value = data.map { .success($0) } ?? .failure(error ?? URLError(.zeroByteResource))
        semaphore.signal()
    }.resume()
    semaphore.wait()
    let data: Data
    do { data = try body.value!.get() } catch { fail("fixture download", error) }
    let pieceSize = 16 * 1024
    return stride(from: 0, to: data.count, by: pieceSize).map { Data(data[$0..<min($0 + pieceSize, data.count)]) }
}()

/// A value handed from URLSession's completion thread to the waiting one (the semaphore orders them).
final class LockedBox<Value>: @unchecked Sendable {
    var value: Value?
}

func check(_ count: Int, _ what: String) {
    if count != fixtureEvents {
        FileHandle.standardError.write(Data("\(what): \(count) events, expected \(fixtureEvents)\n".utf8))
        exit(1)
    }
}

func fail(_ what: String, _ error: any Error) -> Never {
    FileHandle.standardError.write(Data("\(what) failed: \(error)\n".utf8))
    exit(1)
}

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .throughput, .peakMemoryResident, .mallocCountTotal]
    // A stream takes a few hundred ms: few iterations, bounded by time so a loaded machine still ends.
    let streams = Benchmark.Configuration(
        metrics: metrics, warmupIterations: 1, maxDuration: .seconds(isSmokeRun ? 1 : 8), maxIterations: iterations(25))

    Benchmark("stream/events/library-urlsession", configuration: streams) { _ async in
        check(await libraryStream(SSEOnURLSession.events), "library on URLSession")
    }
    Benchmark("stream/events/raw-urlsession", configuration: streams) { _ async in
        check(await expectSuccess("raw URLSession stream") { try await RawURLSessionStream.shared.run() }, "raw URLSession")
    }
    Benchmark("stream/events/library-ahc", configuration: streams) { _ async in
        check(await libraryStream(SSEOnAHC.events), "library on AsyncHTTPClient")
    }
    Benchmark("stream/events/raw-ahc", configuration: streams) { _ async in
        check(await expectSuccess("raw AsyncHTTPClient stream") { try await rawAHCStream() }, "raw AsyncHTTPClient")
    }
    Benchmark("stream/events/library-curl", configuration: streams) { _ async in
        check(await libraryStream(SSEOnCurl.events), "library on CurlTransport")
    }
    Benchmark("stream/events/raw-curl", configuration: streams) { _ async in
        check(await expectSuccess("raw libcurl stream") { try await rawCurlStream() }, "raw libcurl")
    }

    // The parser alone: one iteration parses the whole fixture from memory; aggregate.py divides
    // the fixture's size by the time per iteration for MB/s.
    Benchmark("stream/parser", configuration: streams) { _ in
        let pieces = fixturePieces
        var parser = ServerSentEventParser(maxEventSize: 1_048_576)
        var count = 0
        do {
            for piece in pieces {
                let events = try parser.parse(piece)
                count += events.count
                blackHole(events)
            }
        } catch {
            fail("parser", error)
        }
        check(count, "parser")
    }
}
