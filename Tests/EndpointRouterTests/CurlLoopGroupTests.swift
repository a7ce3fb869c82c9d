#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// A ``CurlTransport`` of several loops against a local server: calls at once use every loop and
    /// together stay within the per-host limit, calls one after another reuse one connection, and
    /// shutdown ends the calls of every loop.
    struct CurlLoopGroupTests {
        static func transport(loops: Int, connections: Int) throws -> CurlTransport {
            var configuration = CurlTransport.Configuration(maximumConnectionsPerHost: connections)
            configuration.loopCount = loops
            return try CurlTransport(configuration: configuration)
        }

        static func get(_ server: TestServer, _ path: String, on transport: CurlTransport) async -> Result<Int, HTTPClientError> {
            guard let url = URL(string: "\(server.baseURL)/\(path)") else { return .failure(.invalidResponse) }
            do {
                let head = try await transport.send(
                    OutgoingRequest(method: .get, url: url), context: testContext(), sink: MemoryBodySink(limit: nil))
                return .success(head.statusCode)
            } catch {
                return .failure(error)
            }
        }

        @Test func theDefaultIsOneLoopPerCoreAtMostFour() {
            let cores = ProcessInfo.processInfo.activeProcessorCount
            #expect(CurlTransport.Configuration().loopCount == min(4, max(1, cores)))
            #expect(CurlTransport.Configuration.defaultLoopCount == min(4, max(1, cores)))
        }

        /// 24 slow calls at once to one host on 2 loops with 4 connections: both loops open their 2,
        /// and no more than 4 connections reach the server in all.
        @Test func callsAtOnceUseEveryLoopWithinThePerHostLimit() async throws {
            let server = try TestServer { _ in
                Thread.sleep(forTimeInterval: 0.05)
                return .json("{}")
            }
            defer { server.stop() }
            let transport = try Self.transport(loops: 2, connections: 4)
            defer { transport.shutdown() }
            let results = await withTaskGroup(of: Result<Int, HTTPClientError>.self) { group in
                for index in 0..<24 { group.addTask { await Self.get(server, "n\(index)", on: transport) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { (try? $0.get()) == 200 }, "\(results)")
            #expect(server.requests.count == 24)
            #expect(server.connectionCount <= 4, "\(server.connectionCount) connections for a limit of 4")
            // One loop alone would have opened at most its share, 2.
            #expect(server.connectionCount > 2, "\(server.connectionCount) connections: the calls did not spread")
        }

        /// Calls one after another stay on one loop, so the connection is reused as with one loop.
        @Test func callsOneAfterAnotherReuseOneConnection() async throws {
            let server = try TestServer { _ in .json("{}") }
            defer { server.stop() }
            let transport = try Self.transport(loops: 4, connections: 6)
            defer { transport.shutdown() }
            for index in 0..<6 {
                let result = await Self.get(server, "n\(index)", on: transport)
                #expect((try? result.get()) == 200, "\(result)")
            }
            #expect(server.connectionCount == 1, "\(server.connectionCount) connections for 6 calls in a row")
        }

        /// Shutdown ends the calls in flight on every loop with the typed error, and later calls too.
        @Test func shutdownEndsTheCallsOfEveryLoop() async throws {
            let server = try TestServer { _ in .hang }
            defer { server.stop() }
            let transport = try Self.transport(loops: 2, connections: 4)
            let calls = Task {
                await withTaskGroup(of: Result<Int, HTTPClientError>.self) { group in
                    for index in 0..<8 { group.addTask { await Self.get(server, "n\(index)", on: transport) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            // Generous: on a busy machine the calls may take seconds to start; only the wait is long.
            let deadline = ContinuousClock.now + .seconds(30)
            while server.requests.count < 4 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.connectionCount == 4, "both loops have their connections open")
            transport.shutdown()
            let results = await calls.value
            #expect(results.count == 8)
            for result in results + [await Self.get(server, "later", on: transport)] {
                guard case .failure(.transport(let error)) = result else {
                    Issue.record("expected the shut-down error, got \(result)")
                    continue
                }
                #expect(error.code == .resourceUnavailable, "\(error)")
            }
        }
    }
#endif
