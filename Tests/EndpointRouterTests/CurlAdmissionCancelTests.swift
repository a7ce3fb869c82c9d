#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    /// Calls cancelled at every instant of their life while a host's calls are held: before the loop
    /// takes them, while held, just as they are admitted, once on a connection. Every call still
    /// ends, and no cancel costs the host a place: a place lost would leave later calls held for good.
    struct CurlAdmissionCancelTests {
        /// From none to a few milliseconds: before the loop takes the call, while it is held, and
        /// once it is on a connection.
        static let delays: [Duration] = [
            .zero, .microseconds(50), .microseconds(200), .milliseconds(1), .milliseconds(3), .milliseconds(8),
        ]

        /// A server whose `/victim…` calls take 5 s, so that a cancel always comes first (their
        /// server's wait ends as soon as the client hangs up), and whose `/gate…` calls wait for `gate`.
        static func server(gate: CurlAdmissionTests.Gate) throws -> TestServer {
            try TestServer { request in
                if request.path.hasPrefix("/gate") { gate.wait() }
                if request.path.hasPrefix("/victim") { return .json("{}").delayed(by: 5) }
                return .json("{}").delayed(by: request.path.hasPrefix("/busy") ? 0.1 : 0.003)
            }
        }

        typealias Call = Task<Result<Int, HTTPClientError>, Never>

        /// Whether every call of a round ended as it should within `seconds` in all, the cancelled
        /// ones with the cancellation error and the others with 200; an issue for each that did not.
        /// A call still held has no libcurl timeout to end it (only one on the multi has), so without
        /// the bound a place lost would hold the calls behind it, and the test, for good.
        static func ended(_ calls: [(cancelled: Bool, call: Call)], round: String, within seconds: Double) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            var allEnded = true
            for (cancelled, call) in calls {
                let result = await boundedValue(of: call, within: max(0, ContinuousClock.now.duration(to: deadline) / .seconds(1)))
                let expected = cancelled ? (result?.failure == .cancelled) : ((try? result?.get()) == 200)
                if !expected {
                    Issue.record(
                        "\(round): a call \(cancelled ? "cancelled" : "not cancelled") ended with \(result.map { "\($0)" } ?? "nothing within \(seconds) s")"
                    )
                    allEnded = false
                }
            }
            return allEnded
        }

        /// Starts a call to `path` and cancels its task after `delay`.
        static func cancelled(
            _ server: TestServer, _ path: String, after delay: Duration, on transport: CurlTransport
        ) async throws -> Call {
            let call = Task { await CurlLoopGroupTests.get(server, path, on: transport) }
            if delay > .zero { try await Task.sleep(for: delay) }
            call.cancel()
            return call
        }

        /// `count` calls at once gated by the server: whether all reached it together, so that the
        /// transport has that many places free for the host, then their results once the gate opens.
        static func placesAreFree(_ count: Int, on server: TestServer, gate: CurlAdmissionTests.Gate, transport: CurlTransport)
            async throws -> (allAdmitted: Bool, results: [Result<Int, HTTPClientError>])
        {
            let before = server.requests.count
            let calls = (0..<count).map { index in Task { await CurlLoopGroupTests.get(server, "gate\(index)", on: transport) } }
            let allAdmitted = try await CurlAdmissionTests.requests(before + count, on: server)
            gate.open()
            var results: [Result<Int, HTTPClientError>] = []
            for call in calls { results.append(await boundedValue(of: call, within: 10) ?? .failure(.cancelled)) }
            return (allAdmitted, results)
        }

        /// One loop, 2 connections. Odd rounds cancel a call held behind 2 busy ones; even rounds
        /// cancel the round's first call, admitted (or not yet taken), with 4 calls behind it. Each
        /// round's cancel comes after another delay. Every call ends as it should within its 10 s
        /// deadline, and afterwards both places of the host are still there.
        @Test func cancellingAtEveryInstantLosesNoPlace() async throws {
            let gate = CurlAdmissionTests.Gate()
            let server = try Self.server(gate: gate)
            defer { server.stop() }
            let transport = try CurlAdmissionTests.transport(connections: 2)
            defer { transport.shutdown() }
            let rounds = 2 * Self.delays.count * 2
            for round in 0..<rounds {
                // Each delay twice for each kind of round.
                let delay = Self.delays[(round / 2) % Self.delays.count]
                var calls: [(cancelled: Bool, call: Call)] = []
                if round % 2 == 1 {
                    let before = server.requests.count
                    for index in 0..<2 {
                        calls.append((false, Task { await CurlLoopGroupTests.get(server, "busy\(round)-\(index)", on: transport) }))
                    }
                    #expect(try await CurlAdmissionTests.requests(before + 2, on: server), "round \(round): the busy calls never started")
                    calls.append((false, Task { await CurlLoopGroupTests.get(server, "held\(round)-a", on: transport) }))
                    calls.append((true, try await Self.cancelled(server, "victim\(round)", after: delay, on: transport)))
                    calls.append((false, Task { await CurlLoopGroupTests.get(server, "held\(round)-b", on: transport) }))
                } else {
                    let first = Task { await CurlLoopGroupTests.get(server, "victim\(round)", on: transport) }
                    calls.append((true, first))
                    for index in 0..<4 {
                        calls.append((false, Task { await CurlLoopGroupTests.get(server, "behind\(round)-\(index)", on: transport) }))
                    }
                    if delay > .zero { try await Task.sleep(for: delay) }
                    first.cancel()
                }
                // The first round that goes wrong ends the test: the next would only wait as long.
                guard await Self.ended(calls, round: "round \(round), cancelled after \(delay)", within: 10) else { return }
            }
            // Only a cancelled call on a connection closes it: each even round's may, no other call.
            #expect(server.connectionCount <= 2 + rounds / 2, "\(server.connectionCount) connections")
            let (allAdmitted, results) = try await Self.placesAreFree(2, on: server, gate: gate, transport: transport)
            #expect(allAdmitted, "a place of the host was lost: 2 calls did not reach the server together")
            #expect(results.allSatisfy { (try? $0.get()) == 200 }, "\(results)")
        }

        /// Two loops of 2 connections each, 12 calls at once of which 3 are cancelled (the first
        /// ones, admitted, and one held), each after another delay, in 12 rounds: every call ends as it should, and afterwards 4 calls at once
        /// still reach the server together, so neither loop lost a place nor the group a count.
        @Test func cancellingAtEveryInstantAcrossLoopsLosesNoPlace() async throws {
            let gate = CurlAdmissionTests.Gate()
            let server = try Self.server(gate: gate)
            defer { server.stop() }
            let transport = try CurlLoopGroupTests.transport(loops: 2, connections: 4)
            defer { transport.shutdown() }
            for round in 0..<12 {
                // The first on each loop, admitted with calls held behind it, and one in the middle.
                let victims: Set = [0, 1, 6]
                let calls: [(cancelled: Bool, call: Call)] = (0..<12).map { index in
                    let path = victims.contains(index) ? "victim\(round)-\(index)" : "call\(round)-\(index)"
                    return (victims.contains(index), Task { await CurlLoopGroupTests.get(server, path, on: transport) })
                }
                // Each after another delay, from the one before.
                for (number, victim) in calls.filter(\.cancelled).enumerated() {
                    let delay = Self.delays[(round + 2 * number) % Self.delays.count]
                    if delay > .zero { try await Task.sleep(for: delay) }
                    victim.call.cancel()
                }
                guard await Self.ended(calls, round: "round \(round)", within: 10) else { return }
            }
            let (allAdmitted, results) = try await Self.placesAreFree(4, on: server, gate: gate, transport: transport)
            #expect(allAdmitted, "a place was lost: 4 calls did not reach the server together")
            #expect(results.allSatisfy { (try? $0.get()) == 200 }, "\(results)")
        }
    }
#endif
