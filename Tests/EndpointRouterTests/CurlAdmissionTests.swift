#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// A ``CurlTransport`` of one loop against a local HTTP/1.1 server, with more calls at once than
    /// connections: the loop holds the rest (``CurlAdmissionState``), starts them oldest first, and a
    /// held call ends like a started one when cancelled. A fast endless body holds back only its own
    /// host's calls; an HTTP/2 host's first answer releases all of its held calls. Cancels at every
    /// instant are in ``CurlAdmissionCancelTests``.
    struct CurlAdmissionTests {
        /// A gate the server's handler threads wait on, opened once by the test.
        final class Gate: Sendable {
            private let opened = Locked(false)
            func open() { opened.withLock { $0 = true } }
            /// Waits until opened, for 10 s at most.
            func wait() {
                let deadline = Date(timeIntervalSinceNow: 10)
                while !opened.withLock({ $0 }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
            }
        }

        static func transport(connections: Int) throws -> CurlTransport {
            var configuration = CurlTransport.Configuration(maximumConnectionsPerHost: connections)
            configuration.loopCount = 1
            return try CurlTransport(configuration: configuration)
        }

        /// Calls `path` and returns its status; every wait is bounded by the call's 10 s deadline.
        static func get(_ server: TestServer, _ path: String, on transport: CurlTransport) async -> Result<Int, HTTPClientError> {
            await CurlLoopGroupTests.get(server, path, on: transport)
        }

        /// Waits, without blocking a thread of the pool, until `server` has `count` requests (10 s at most).
        static func requests(_ count: Int, on server: TestServer) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while server.requests.count < count && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            return server.requests.count >= count
        }

        /// 40 calls at once, 2 connections: every call succeeds on at most 2 connections.
        @Test func manyCallsAtOnceStayWithinTheLimit() async throws {
            let server = try TestServer { _ in .json("{}").delayed(by: 0.005) }
            defer { server.stop() }
            let transport = try Self.transport(connections: 2)
            defer { transport.shutdown() }
            let results = await withTaskGroup(of: Result<Int, HTTPClientError>.self) { group in
                for index in 0..<40 { group.addTask { await Self.get(server, "n\(index)", on: transport) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { (try? $0.get()) == 200 }, "\(results)")
            #expect(server.requests.count == 40)
            #expect(server.connectionCount <= 2, "\(server.connectionCount) connections for a limit of 2")
        }

        /// Calls held while both connections are busy reach the server before calls made later, and
        /// in the order they were made: a call made just as a connection frees does not take it.
        @Test func heldCallsStartOldestFirst() async throws {
            let gate = Gate()
            let server = try TestServer { request in
                if request.path.hasPrefix("/first") { gate.wait() }
                return .json("{}").delayed(by: 0.002)
            }
            defer { server.stop() }
            let transport = try Self.transport(connections: 2)
            defer { transport.shutdown() }
            var calls: [Task<Result<Int, HTTPClientError>, Never>] = []
            for index in 0..<2 { calls.append(Task { await Self.get(server, "first\(index)", on: transport) }) }
            #expect(try await Self.requests(2, on: server))
            // One at a time, each seen running before the next is made, so that the order they reach
            // the loop is the order they are made even when the parallel suite keeps the
            // cooperative pool busy (a task made but not yet run let a later call overtake it).
            let started = Locked(0)
            for index in 0..<12 {
                calls.append(
                    Task {
                        started.withLock { $0 += 1 }
                        return await Self.get(server, "held\(index)", on: transport)
                    })
                let limit = ContinuousClock.now + .seconds(5)
                while started.withLock({ $0 }) <= index && ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(1)) }
                try await Task.sleep(for: .milliseconds(15))
            }
            #expect(started.withLock { $0 } == 12)
            try await Task.sleep(for: .milliseconds(100))
            gate.open()
            // Later calls keep arriving while the held ones are being served.
            for index in 0..<12 {
                calls.append(Task { await Self.get(server, "later\(index)", on: transport) })
                try await Task.sleep(for: .milliseconds(1))
            }
            for call in calls {
                let result = await call.value
                #expect((try? result.get()) == 200, "\(result)")
            }
            let paths = server.requests.map(\.path).filter { !$0.hasPrefix("/first") }
            let held = paths.filter { $0.hasPrefix("/held") }
            // Two connections serve in parallel: two calls started together may reach the server
            // either way round, so each may be one place off its turn, no more.
            #expect(held.count == 12)
            for (position, path) in held.enumerated() {
                let index = Int(path.dropFirst("/held".count)) ?? -10
                #expect(abs(position - index) <= 1, "held call \(index) came \(position)th: \(held)")
            }
            // The same for the last held call and the first later one, started together when the two
            // connections free (seen once in the parallel suite: /later0 read just before /held11).
            let firstLater = paths.firstIndex { $0.hasPrefix("/later") } ?? paths.count
            #expect(firstLater >= 11, "a later call overtook held ones: \(paths)")
            #expect(server.connectionCount <= 2, "\(server.connectionCount) connections for a limit of 2")
        }

        /// A held call cancelled ends at once with the cancellation error and never reaches the
        /// server; the slow call ahead of it still completes, and the one behind it starts after it.
        @Test func cancellingAHeldCallEndsItPromptly() async throws {
            let gate = Gate()
            let server = try TestServer { request in
                if request.path == "/slow" { gate.wait() }
                return .json("{}")
            }
            defer { server.stop() }
            let transport = try Self.transport(connections: 1)
            defer { transport.shutdown() }
            let slow = Task { await Self.get(server, "slow", on: transport) }
            #expect(try await Self.requests(1, on: server))
            let held = Task { await Self.get(server, "held", on: transport) }
            try await Task.sleep(for: .milliseconds(50))
            let behind = Task { await Self.get(server, "behind", on: transport) }
            try await Task.sleep(for: .milliseconds(50))
            let cancelled = ContinuousClock.now
            held.cancel()
            let heldResult = await held.value
            let took = cancelled.duration(to: .now)
            guard case .failure(.cancelled) = heldResult else {
                Issue.record("expected the cancellation error, got \(heldResult)")
                gate.open()
                return
            }
            #expect(took < .seconds(2), "the held call took \(took) to end")
            gate.open()
            #expect((try? await slow.value.get()) == 200)
            #expect((try? await behind.value.get()) == 200)
            #expect(server.requests.map(\.path) == ["/slow", "/behind"])
            #expect(server.connectionCount == 1)
        }

        /// One connection, taken by a fast endless body that ends at its deadline (libcurl's
        /// backstop, a second after the call's 1 s): the calls held behind it start once it ends and
        /// complete soon after, and a call to another host meanwhile is not held behind it.
        @Test func anEndlessBodyDelaysOnlyItsOwnHost() async throws {
            let server = try TestServer { request in request.path == "/endless" ? .stream() : .json("{}") }
            defer { server.stop() }
            let other = try TestServer { _ in .json("{}") }
            defer { other.stop() }
            let transport = try Self.transport(connections: 1)
            defer { transport.shutdown() }
            let url = try #require(URL(string: "\(server.baseURL)/endless"))
            let endless = Task { () -> (Result<Int, HTTPClientError>, ContinuousClock.Instant) in
                // Past the first MiB the bytes are dropped: the body is read at full speed, in bounded memory.
                let sink = MemoryBodySink(limit: 1 << 20, overflow: .truncate)
                do throws(HTTPClientError) {
                    let head = try await transport.send(
                        OutgoingRequest(method: .get, url: url), context: testContext(seconds: 1), sink: sink)
                    return (.success(head.statusCode), .now)
                } catch {
                    return (.failure(error), .now)
                }
            }
            #expect(try await Self.requests(1, on: server))
            let held = (0..<4).map { index in
                Task { () -> (Result<Int, HTTPClientError>, ContinuousClock.Instant) in
                    (await Self.get(server, "held\(index)", on: transport), .now)
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            let otherResult = await Self.get(other, "other", on: transport)
            let otherEnded = ContinuousClock.now
            let ended = await boundedValue(of: endless, within: 15)
            guard let ended, case .failure(.timedOut) = ended.0 else {
                Issue.record("expected the endless body to end at its deadline, got \(String(describing: ended))")
                return
            }
            let endlessEnded = ended.1
            #expect((try? otherResult.get()) == 200, "\(otherResult)")
            #expect(
                otherEnded < endlessEnded, "the other host's call waited \(endlessEnded.duration(to: otherEnded)) past the endless body")
            for call in held {
                guard let outcome = await boundedValue(of: call, within: 10) else {
                    Issue.record("a call held behind the endless body never ended")
                    continue
                }
                let (result, ended) = outcome
                #expect((try? result.get()) == 200, "\(result)")
                #expect(ended > endlessEnded, "a call held behind the endless body ended before it")
                #expect(
                    endlessEnded.duration(to: ended) < .seconds(3),
                    "a held call ended \(endlessEnded.duration(to: ended)) after the endless body")
            }
            #expect(server.requests.map(\.path).first == "/endless")
            #expect(server.requests.count == 5)
        }

        /// Over HTTP/2, one connection allowed: a burst of eight calls to a host not seen yet starts one
        /// and holds seven; that one's answer, over HTTP/2, releases all seven at once, multiplexed on its
        /// connection. The server answers them only when all seven are in flight together, so a release
        /// of one at a time (the HTTP/1.1 rule) would leave them to time out.
        @Test func anHTTP2AnswerReleasesEveryHeldCallOfItsHost() async throws {
            let pki = try TestPKI.shared()
            let server = try await EdgeTLSServer.start(.a, pki: pki, options: .init(offersHTTP2: true, http2AnswersTogether: 7))
            defer { server.stop() }
            var configuration = CurlTransport.Configuration(maximumConnectionsPerHost: 1)
            configuration.loopCount = 1
            configuration.certificateAuthorityFile = pki.authorityCertificate(.a)
            let transport = try EdgeMatrix.transport(configuration, proxy: .none, through: nil)
            let results = await withTaskGroup(of: Result<Data, HTTPClientError>.self) { group in
                for _ in 0..<8 { group.addTask { await EdgeMatrix.call(server.baseURL, transport) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for (index, result) in results.enumerated() { EdgeMatrix.expectServersHead(result, "call \(index + 1) of 8") }
            #expect(server.http2RequestCount == 8, "\(server.log())")
            #expect(server.log().contains("h2-together 1 7"), "\(server.log())")
            #expect(server.connectionCount == 1, "\(server.log())")
        }
    }
#endif
