import Foundation
import Testing

@testable import EndpointRouter

extension Serialized {
    /// The contract above the transport: context, total deadline, request checks, size limit, in order.
    @Suite("Pipeline")
    struct PipelineTests {
        enum Service: HTTPClient {
            case todo(id: Int)
            case list

            var host: String { "https://api.example.com" }
            var endpoint: String { "x" }
            var transport: any HTTPTransport {
                ClosureTransport { _ in IncomingResponse(statusCode: 200) }
            }
        }

        @Test func endpointNameIsTypeAndCaseWithoutValues() {
            #expect(Service.todo(id: 4711).endpointName == "Service.todo")
            #expect(Service.list.endpointName == "Service.list")
            #expect(TestEndpoint().endpointName == "TestEndpoint")
        }

        /// Records the context every step sees.
        struct Observe: HTTPMiddleware {
            let seen: Locked<[String]>
            let label: String
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                seen.withLock { $0.append("\(label):\(context.endpointName):\(context.attempt)") }
                return try await next(request, context)
            }
        }

        struct Repeat: HTTPMiddleware {
            let times: Int
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                var last = try await next(request, context)
                for _ in 1..<times { last = try await next(request, context) }
                return last
            }
        }

        @Test func contextCarriesEndpointAndAttemptDownTheChain() async throws {
            let seen = Locked<[String]>([])
            let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200) }
            _ = try await TestEndpoint(
                endpoint: "x", transport: transport,
                middlewares: [Observe(seen: seen, label: "a"), Repeat(times: 3), Observe(seen: seen, label: "b")]
            )
            .request(type: EmptyResponse.self).get()
            #expect(seen.withLock { $0 } == ["a:TestEndpoint:1", "b:TestEndpoint:1", "b:TestEndpoint:2", "b:TestEndpoint:3"])
        }

        @Test func transportSeesTheDeadlineOfTheWholeCall() async throws {
            let remaining = Locked<Duration?>(nil)
            let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200) }
            struct Capture: HTTPTransport {
                let remaining: Locked<Duration?>
                let inner: ClosureTransport
                func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
                    -> ResponseHead
                {
                    remaining.withLock { $0 = context.remainingTime }
                    return try await inner.send(request, context: context, sink: sink)
                }
            }
            _ = try await TestEndpoint(endpoint: "x", timeout: 7, transport: Capture(remaining: remaining, inner: transport))
                .request(type: EmptyResponse.self).get()
            let seen = try #require(remaining.withLock { $0 })
            #expect(seen > .seconds(6) && seen <= .seconds(7))
        }

        // MARK: The total deadline bounds middlewares too

        struct SleepFirst: HTTPMiddleware {
            let seconds: Double
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return try await next(request, context)
            }
        }

        /// Ignores cancellation on purpose (it waits for a detached task, which cancellation does not
        /// reach): the caller must get `.timedOut` or `.cancelled` on time anyway.
        struct StubbornSleep: HTTPMiddleware {
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                await Task.detached { try? await Task.sleep(nanoseconds: 3_000_000_000) }.value
                return try await next(request, context)
            }
        }

        static func elapsed(_ body: () async -> Void) async -> Duration {
            let start = ContinuousClock.now
            await body()
            return ContinuousClock.now - start
        }

        @Test func middlewareSleepingPastTheDeadlineTimesOut() async throws {
            for middleware in [SleepFirst(seconds: 3) as any HTTPMiddleware, StubbornSleep()] {
                var result: Result<EmptyResponse, HTTPClientError>?
                let elapsed = await Self.elapsed {
                    result = await TestEndpoint(
                        endpoint: "x", timeout: 1, transport: ClosureTransport { _ in IncomingResponse(statusCode: 200) },
                        middlewares: [middleware]
                    ).request(type: EmptyResponse.self)
                }
                #expect(result?.failure == .timedOut)
                #expect(elapsed >= .seconds(1) && elapsed < .milliseconds(1100), "\(type(of: middleware)): \(elapsed)")
            }
        }

        /// A middleware retrying 3× against a server answering after 0.4 s, with `timeout: 1`.
        @Test func retriesShareOneDeadline() async throws {
            let sends = Locked(0)
            let slow = ClosureTransport { _ in
                sends.withLock { $0 += 1 }
                try? await Task.sleep(nanoseconds: 400_000_000)
                return IncomingResponse(statusCode: 503)
            }
            var result: Result<EmptyResponse, HTTPClientError>?
            let elapsed = await Self.elapsed {
                result = await TestEndpoint(endpoint: "x", timeout: 1.0, transport: slow, middlewares: [Repeat(times: 3)])
                    .request(type: EmptyResponse.self)
            }
            #expect(result?.failure == .timedOut)
            #expect(elapsed >= .seconds(1) && elapsed < .milliseconds(1100), "\(elapsed)")
            #expect(sends.withLock { $0 } == 3)
        }

        @Test func cancellationEndsTheCallAtOnceWhateverTheMiddlewareDoes() async throws {
            let task = Task {
                await TestEndpoint(
                    endpoint: "x", transport: ClosureTransport { _ in IncomingResponse(statusCode: 200) },
                    middlewares: [StubbornSleep()]
                ).request(type: EmptyResponse.self)
            }
            try await Task.sleep(nanoseconds: 100_000_000)
            var result: Result<EmptyResponse, HTTPClientError>?
            let elapsed = await Self.elapsed {
                task.cancel()
                result = await task.value
            }
            #expect(result?.failure == .cancelled)
            #expect(elapsed < .milliseconds(100), "\(elapsed)")
        }

        // MARK: Request checks run after the last middleware, before any transport

        @Test(arguments: [("X-A", "ok\r\nX-Injected: 1"), ("X-A", "nul\0"), ("X-A", "lf\n"), ("Bad Name", "v"), ("Content-Length", "3")])
        func headerFromAMiddlewareIsRefusedAndNothingIsSent(_ name: String, _ value: String) async throws {
            struct Add: HTTPMiddleware {
                let name: String
                let value: String
                func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError)
                    -> IncomingResponse
                {
                    var request = request
                    request.headers.add(name: name, value: value)
                    return try await next(request, context)
                }
            }
            let sends = Locked(0)
            let transport = ClosureTransport { _ in
                sends.withLock { $0 += 1 }
                return IncomingResponse(statusCode: 200)
            }
            let result = await TestEndpoint(endpoint: "x", transport: transport, middlewares: [Add(name: name, value: value)])
                .request(type: EmptyResponse.self)
            guard case .failure(.invalidHeader) = result else {
                Issue.record("expected .invalidHeader, got \(result)")
                return
            }
            #expect(sends.withLock { $0 } == 0)
        }

        @Test(arguments: [RequestMethod.get, .head])
        func bodyAddedByAMiddlewareToGetOrHeadIsRefused(_ method: RequestMethod) async throws {
            struct AddBody: HTTPMiddleware {
                func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError)
                    -> IncomingResponse
                {
                    var request = request
                    request.body = .file(URL(fileURLWithPath: "/etc/hostname"))
                    return try await next(request, context)
                }
            }
            let sends = Locked(0)
            let transport = ClosureTransport { _ in
                sends.withLock { $0 += 1 }
                return IncomingResponse(statusCode: 200)
            }
            let result = await TestEndpoint(endpoint: "x", method: method, transport: transport, middlewares: [AddBody()])
                .request(type: EmptyResponse.self)
            guard case .failure(.encodingFailed(let message)) = result else {
                Issue.record("expected .encodingFailed, got \(result)")
                return
            }
            #expect(message.contains("cannot carry a body"))
            #expect(sends.withLock { $0 } == 0)
        }

        // MARK: Size limit

        @Test func bodyOverTheLimitFails() async throws {
            let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data(count: 1024 * 1024)) }
            let result = await TestEndpoint(endpoint: "x", maxResponseSize: 64 * 1024, transport: transport).request(type: Data.self)
            #expect(result.failure == .responseTooLarge(limit: 64 * 1024))
            let exact = await TestEndpoint(endpoint: "x", maxResponseSize: 1024 * 1024, transport: transport).request(type: Data.self)
            #expect((try? exact.get())?.count == 1024 * 1024)
            let unlimited = await TestEndpoint(endpoint: "x", maxResponseSize: nil, transport: transport).request(type: Data.self)
            #expect((try? unlimited.get())?.count == 1024 * 1024)
        }

        /// A transport that announces a length, then counts what the sink accepted.
        struct Announcing: HTTPTransport {
            let written: Locked<Int>
            func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
                -> ResponseHead
            {
                let head = ResponseHead(statusCode: 200, headers: ["Content-Length": "\(100 * 1024 * 1024)"])
                try sink.receive(head)
                let piece = Data(count: 64 * 1024)
                for _ in 0..<1600 {
                    try sink.write(piece)
                    written.withLock { $0 += piece.count }
                }
                return head
            }
        }

        @Test func announcedLengthOverTheLimitFailsBeforeAnyBodyByte() async throws {
            let written = Locked(0)
            let result = await TestEndpoint(endpoint: "x", maxResponseSize: 1024 * 1024, transport: Announcing(written: written))
                .request(type: Data.self)
            #expect(result.failure == .responseTooLarge(limit: 1024 * 1024))
            #expect(written.withLock { $0 } == 0)
        }

        @Test func compressedBodyIsLimitedOnDecodedBytes() async throws {
            let transport = ClosureTransport { _ in
                IncomingResponse(
                    statusCode: 200, headers: ["Content-Encoding": "gzip", "Content-Length": "100"], body: Data(count: 200_000))
            }
            let result = await TestEndpoint(endpoint: "x", maxResponseSize: 100_000, transport: transport).request(type: Data.self)
            #expect(result.failure == .responseTooLarge(limit: 100_000))
        }
    }
}
