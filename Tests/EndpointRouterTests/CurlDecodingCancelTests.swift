#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// Cancelling calls on ``CurlTransport`` at random instants while their compressed body is being
    /// decoded (on the loop thread, between libcurl's pauses): every call ends promptly, `.cancelled`
    /// or whole if it won the race, nothing crashes, and the transport is left able to serve the
    /// next call. The instants come from a seeded generator, printed with every failure; replay one
    /// with `CANCEL_DECODE_SEED=<seed>`.
    struct CurlDecodingCancelTests {
        static let seed = UInt64(ProcessInfo.processInfo.environment["CANCEL_DECODE_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        /// Under a sanitizer (`ENDPOINTROUTER_SANITIZER`, set by `.ci/run`) decoding is many times
        /// slower: fewer rounds, and a longer bound.
        static let sanitized = ProcessInfo.processInfo.environment["ENDPOINTROUTER_SANITIZER"] != nil
        static let rounds = sanitized ? 10 : 30
        /// Long enough for any decode here on a loaded machine (beside the parallel suite a call for
        /// `lines.gz` took 0.6 s, a hundred times its usual), short enough to fail rather than stall.
        static let bound = sanitized ? 120.0 : 30.0

        /// What `repeated.gz` decodes to: 16 MiB of one 64-byte line (`Fixtures/encoded/make.sh`).
        static let repeated: Data = {
            let line = Data("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-\n".utf8)
            var data = Data(capacity: 16 * 1_048_576)
            for _ in 0..<(16 * 16384) { data.append(line) }
            return data
        }()

        /// `Content-Encoding`, fixture, and the decoder it needs (a row is skipped, and says so, where
        /// the machine's libcurl has no such decoder).
        static let rows: [(coding: String, file: String, needs: CurlDecodingState.Coding)] = [
            ("gzip", "lines.gz", .gzip), ("br", "lines.br", .brotli), ("zstd", "lines.zst", .zstd),
            ("gzip, br", "lines.gz.br", .brotli), ("gzip", "repeated.gz", .gzip),
        ]

        static func expected(_ file: String) -> Data { file.hasPrefix("repeated") ? repeated : CurlDecodingTests.lines }

        /// Collects a body as the transport delivers it, and counts pieces that come after the
        /// caller had its outcome (``close()``): the transport promises there are none.
        final class RecordingSink: ResponseBodySink {
            private let state = Locked<(body: Data, closed: Bool, late: Int)>((Data(), false, 0))
            func receive(_ head: ResponseHead) throws(HTTPClientError) {}
            func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) {
                state.withLock { state in
                    if state.closed { state.late += 1 } else { state.body.append(contentsOf: bytes) }
                }
            }
            func close() { state.withLock { $0.closed = true } }
            var body: Data { state.withLock { $0.body } }
            var latePieces: Int { state.withLock { $0.late } }
        }

        /// One exchange for the whole body, straight on the transport, so that what the transport
        /// answers a cancellation with is seen as it is (the pipeline above answers `.cancelled` to
        /// a cancelled caller whatever the transport did).
        static func wholeBody(from url: URL, on transport: CurlTransport, into sink: RecordingSink) async -> Result<Data, HTTPClientError> {
            defer { sink.close() }
            do throws(HTTPClientError) {
                _ = try await transport.send(OutgoingRequest(method: .get, url: url), context: testContext(seconds: 30), sink: sink)
                return .success(sink.body)
            } catch {
                return .failure(error)
            }
        }

        @Test(arguments: 0..<5)
        func cancellingWholeBodyCallsAtRandomInstantsWhileDecodingEndsEachPromptly(_ index: Int) async throws {
            let (coding, file, needs) = Self.rows[index]
            guard ContentDecoderChain.isAvailable(needs) else {
                print("CurlDecodingCancelTests: no \(needs) decoder on this machine; \(coding) not cut")
                return
            }
            var random = SeededGenerator(state: Self.seed &+ UInt64(index))
            let tag = "\(coding) \(file), seed \(Self.seed)"
            let expected = Self.expected(file)
            let server = try CurlDecodingTests.server(coding, try CurlDecodingTests.encoded(file))
            defer { server.stop() }
            let transport = try CurlTransport()
            defer { transport.shutdown() }
            let url = try #require(URL(string: server.baseURL + "/body"))
            var sinks: [RecordingSink] = []
            // Whole calls first: they must work, and the fastest (on a warm connection) says how
            // long a call takes, to spread the instants over all of it: before, during and after
            // the decoding.
            var fastest = Duration.seconds(Self.bound)
            for _ in 0..<3 {
                let start = ContinuousClock.now
                let sink = RecordingSink()
                let call = Task { await Self.wholeBody(from: url, on: transport, into: sink) }
                let whole = await boundedValue(of: call, within: Self.bound)
                let took = start.duration(to: .now)
                fastest = min(fastest, took)
                #expect((try? whole?.get()) == expected, "\(tag): an uncancelled call, \(took): \(String(describing: whole))")
            }
            let micros = Int(fastest.components.seconds) * 1_000_000 + Int(fastest.components.attoseconds / 1_000_000_000_000)
            let span = max(micros, 500) * 3 / 2
            var outcomes = (cancelled: 0, whole: 0)
            for round in 0..<Self.rounds {
                let instant = Int.random(in: 0...span, using: &random)
                let sink = RecordingSink()
                sinks.append(sink)
                let call = Task { await Self.wholeBody(from: url, on: transport, into: sink) }
                try? await Task.sleep(for: .microseconds(instant))
                call.cancel()
                guard let result = await boundedValue(of: call, within: Self.bound) else {
                    Issue.record("\(tag), round \(round), cancelled after \(instant) µs: no answer within \(Self.bound) s")
                    continue
                }
                switch result {
                case .failure(.cancelled): outcomes.cancelled += 1
                case .success(let body) where body == expected: outcomes.whole += 1
                default: Issue.record("\(tag), round \(round), cancelled after \(instant) µs: \(result.map(\.count))")
                }
            }
            print("CurlDecodingCancelTests \(tag): \(outcomes.cancelled) cancelled, \(outcomes.whole) whole, instants up to \(span) µs")
            // The transport's state for the cut transfers is gone: the next call is served whole,
            // and no cut transfer wrote to its sink after its caller had the outcome.
            let sink = RecordingSink()
            let next = Task { await Self.wholeBody(from: url, on: transport, into: sink) }
            let after = await boundedValue(of: next, within: Self.bound)
            #expect(sinks.map(\.latePieces).reduce(0, +) == 0, "\(tag): pieces written after the caller had its outcome")
            #expect((try? after?.get()) == expected, "\(tag): the call after the cuts: \(String(describing: after?.failure))")
        }

        /// Through `bytes()` with a 1 KiB buffer the decoding pauses between pieces, so a consumer
        /// that stops after a random number of them cancels with the decoder mid-stream every time.
        @Test(arguments: 0..<5)
        func cancellingAPausedDecodingStreamEndsItPromptly(_ index: Int) async throws {
            let (coding, file, needs) = Self.rows[index]
            guard ContentDecoderChain.isAvailable(needs) else {
                print("CurlDecodingCancelTests: no \(needs) decoder on this machine; \(coding) not cut")
                return
            }
            var random = SeededGenerator(state: Self.seed &+ 100 &+ UInt64(index))
            let tag = "\(coding) \(file), seed \(Self.seed)"
            let expected = Self.expected(file)
            let server = try CurlDecodingTests.server(coding, try CurlDecodingTests.encoded(file))
            defer { server.stop() }
            let transport = try CurlTransport()
            defer { transport.shutdown() }
            let host = server.baseURL
            let limits = StreamLimits(bufferSize: 1024, idleTimeout: 10, totalTimeout: 30)
            var outcomes = (cancelled: 0, whole: 0)
            for round in 0..<Self.rounds {
                let pieces = Int.random(in: 0...40, using: &random)
                let reading = Task { () -> (read: Int, error: HTTPClientError?) in
                    let endpoint = TestEndpoint(host: host, endpoint: "stream", timeout: 30, maxResponseSize: nil, transport: transport)
                    var read = 0
                    do throws(HTTPClientError) {
                        for try await piece in endpoint.bytes(limits: limits) {
                            read += piece.count
                            if read / 1024 >= pieces { withUnsafeCurrentTask { $0?.cancel() } }
                        }
                        return (read, nil)
                    } catch {
                        return (read, error)
                    }
                }
                guard let (read, error) = await boundedValue(of: reading, within: Self.bound) else {
                    reading.cancel()
                    Issue.record("\(tag), round \(round), cancelled after \(pieces) KiB: no end within \(Self.bound) s")
                    continue
                }
                switch error {
                case .cancelled?:
                    outcomes.cancelled += 1
                    // Cut where the consumer stopped, with the rest of the body still to decode.
                    #expect(read >= pieces * 1024 && read < expected.count, "\(tag), round \(round): cancelled after \(read) bytes")
                case nil where read == expected.count:
                    outcomes.whole += 1
                default:
                    Issue.record("\(tag), round \(round), cancelled after \(pieces) KiB: \(read) bytes, \(String(describing: error))")
                }
            }
            print("CurlDecodingCancelTests, streamed \(tag): \(outcomes.cancelled) cancelled, \(outcomes.whole) whole")
            let next = Task {
                await TestEndpoint(host: host, endpoint: "after", timeout: 30, maxResponseSize: nil, transport: transport).request(
                    type: Data.self)
            }
            let after = await boundedValue(of: next, within: Self.bound)
            #expect((try? after?.get()) == expected, "\(tag): the call after the cuts: \(String(describing: after?.failure))")
        }
    }
#endif
