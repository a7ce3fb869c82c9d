import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

extension Serialized {
    /// Concurrent identical GETs against a slow server, counted at the server.
    @Suite("De-duplication of concurrent identical requests")
    struct DeduplicationTests {
        /// A server that answers after `delay` seconds with the number of the request it answers; the
        /// default is long enough for every caller to join on a loaded 2-core machine.
        static func countingServer(delay: TimeInterval = 1) throws -> TestServer {
            let served = Locked(0)
            return try TestServer { _ in
                let number = served.withLock { count -> Int in
                    count += 1
                    return count
                }
                return ScriptedResponse.text("answer-\(number)").delayed(by: delay)
            }
        }

        static func endpoint(_ server: TestServer, inFlight: InFlightRequests, deduplicate: Bool = true) -> MiddlewareEndpoint {
            var endpoint = MiddlewareEndpoint(
                host: server.baseURL, endpoint: "shared", headers: ["Accept": "text/plain"],
                middlewares: [DeduplicationMiddleware(sharing: inFlight)])
            endpoint.options.deduplicate = deduplicate
            return endpoint
        }

        static func concurrently(_ count: Int, _ endpoint: MiddlewareEndpoint) async -> [Result<String, HTTPClientError>] {
            await withTaskGroup(of: Result<String, HTTPClientError>.self) { group in
                for _ in 0..<count { group.addTask { await endpoint.request(type: String.self) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }

        /// Waits (bounded) until `count` callers wait for an exchange another caller is sending.
        static func waiting(_ count: Int, in inFlight: InFlightRequests) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(5)
            while inFlight.waitingCount < count {
                if ContinuousClock.now > deadline { return false }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            return true
        }

        @Test func twentyIdenticalGETsReachTheServerOnce() async throws {
            let server = try Self.countingServer()
            defer { server.stop() }
            let inFlight = InFlightRequests()
            let results = await Self.concurrently(20, Self.endpoint(server, inFlight: inFlight))
            #expect(server.requests.count == 1)
            #expect(results.count == 20)
            #expect(results.allSatisfy { $0 == .success("answer-1") })
            #expect(inFlight.count == 0)
        }

        @Test func withTheOptionOffEveryRequestReachesTheServer() async throws {
            let server = try Self.countingServer(delay: 0.2)
            defer { server.stop() }
            let results = await Self.concurrently(20, Self.endpoint(server, inFlight: InFlightRequests(), deduplicate: false))
            #expect(server.requests.count == 20)
            #expect(Set(results.compactMap { try? $0.get() }).count == 20)
        }

        @Test func aFreshMiddlewarePerCallStillShares() async throws {
            let server = try Self.countingServer()
            defer { server.stop() }
            // The computed-property way: a new DeduplicationMiddleware() for every call, on the shared store.
            let endpoint = MiddlewareEndpoint(
                host: server.baseURL, endpoint: "fresh-\(UUID().uuidString)",
                middlewares: [DeduplicationMiddleware()])
            let results = await withTaskGroup(of: Result<String, HTTPClientError>.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        var copy = endpoint
                        copy.middlewares = [DeduplicationMiddleware()]
                        return await copy.request(type: String.self)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(server.requests.count == 1)
            #expect(results.allSatisfy { $0 == .success("answer-1") })
        }

        @Test func aWaiterThatCancelsDoesNotDisturbTheOthers() async throws {
            let server = try Self.countingServer()
            defer { server.stop() }
            let inFlight = InFlightRequests()
            let endpoint = Self.endpoint(server, inFlight: inFlight)
            let sender = Task { await endpoint.request(type: String.self) }
            #expect(await server.received(1))
            let leaving = Task { await endpoint.request(type: String.self) }
            let staying = Task { await endpoint.request(type: String.self) }
            #expect(await Self.waiting(2, in: inFlight))
            let cancelledAt = ContinuousClock.now
            leaving.cancel()
            #expect(await leaving.value == .failure(.cancelled))
            #expect(ContinuousClock.now - cancelledAt < .milliseconds(200))
            #expect(await sender.value == .success("answer-1"))
            #expect(await staying.value == .success("answer-1"))
            #expect(server.requests.count == 1)
        }

        @Test func aWaiterWhoseDeadlinePassesTimesOutAloneAndTheExchangeGoesOn() async throws {
            let server = try Self.countingServer()
            defer { server.stop() }
            let inFlight = InFlightRequests()
            let endpoint = Self.endpoint(server, inFlight: inFlight)
            var hurried = endpoint
            hurried.timeout = 0.3
            let sender = Task { await endpoint.request(type: String.self) }
            #expect(await server.received(1))
            let start = ContinuousClock.now
            #expect(await hurried.request(type: String.self) == .failure(.timedOut))
            #expect(ContinuousClock.now - start < .milliseconds(600))
            #expect(await sender.value == .success("answer-1"))
            #expect(server.requests.count == 1)
        }

        @Test func whenTheSenderCancelsAWaiterSendsAgainAndNobodyElseFails() async throws {
            let server = try Self.countingServer()
            defer { server.stop() }
            let inFlight = InFlightRequests()
            let endpoint = Self.endpoint(server, inFlight: inFlight)
            let sender = Task { await endpoint.request(type: String.self) }
            #expect(await server.received(1))
            let waiters = (0..<3).map { _ in Task { await endpoint.request(type: String.self) } }
            #expect(await Self.waiting(3, in: inFlight))
            let cancelledAt = ContinuousClock.now
            sender.cancel()
            #expect(await sender.value == .failure(.cancelled))
            #expect(ContinuousClock.now - cancelledAt < .milliseconds(200))
            for waiter in waiters {
                #expect(await waiter.value == .success("answer-2"))
            }
            #expect(server.requests.count == 2)
        }

        @Test func whenEveryCallerCancelsTheExchangeIsAbandoned() async throws {
            let server = try TestServer(response: .hang)
            defer { server.stop() }
            let inFlight = InFlightRequests()
            let endpoint = Self.endpoint(server, inFlight: inFlight)
            let sender = Task { await endpoint.request(type: String.self) }
            #expect(await server.received(1))
            let waiters = (0..<3).map { _ in Task { await endpoint.request(type: String.self) } }
            #expect(await Self.waiting(3, in: inFlight))
            for waiter in waiters { waiter.cancel() }
            for waiter in waiters { #expect(await waiter.value == .failure(.cancelled)) }
            #expect(server.connections.first?.isOpen == true)  // the sender still waits
            sender.cancel()
            #expect(await sender.value == .failure(.cancelled))
            // The client closes the connection: the server sees the exchange abandoned.
            #expect(await server.waitForConnectionEnd(index: 1, timeout: 2) != nil)
            #expect(server.requests.count == 1)
            // The caller is answered at its cancel; the middleware closes the exchange when the
            // transport returns, a moment later (at once on CurlTransport, which can win the race).
            let closeBy = ContinuousClock.now + .seconds(2)
            while inFlight.count > 0 && ContinuousClock.now < closeBy { try? await Task.sleep(for: .milliseconds(5)) }
            #expect(inFlight.count == 0)
        }

        @Test func inTheRecommendedOrderMissesAreSharedAndThenAnsweredFromTheCache() async throws {
            let served = Locked(0)
            let server = try TestServer { _ in
                let number = served.withLock { count -> Int in
                    count += 1
                    return count
                }
                return ScriptedResponse.status(200, headers: [(name: "Cache-Control", value: "max-age=60")], body: "v\(number)")
                    .delayed(by: 1)
            }
            defer { server.stop() }
            var endpoint = MiddlewareEndpoint(host: server.baseURL, endpoint: "catalog")
            endpoint.middlewares = [CachingMiddleware(cache: ResponseCache()), DeduplicationMiddleware(sharing: InFlightRequests())]
            let results = await Self.concurrently(10, endpoint)
            #expect(results.allSatisfy { $0 == .success("v1") })
            #expect(server.requests.count == 1)
            #expect(await endpoint.request(type: String.self) == .success("v1"))
            #expect(server.requests.count == 1)
        }

        @Test func aNewCallAfterTheAnswerSendsAgain() async throws {
            let server = try Self.countingServer(delay: 0)
            defer { server.stop() }
            let endpoint = Self.endpoint(server, inFlight: InFlightRequests())
            #expect(await endpoint.request(type: String.self) == .success("answer-1"))
            #expect(await endpoint.request(type: String.self) == .success("answer-2"))
        }

        /// Alice and Bob ask for the same URL at once, each with the API key an AuthorizationMiddleware
        /// adds (the recommended order): each gets their own answer; Alice's second call still shares hers.
        @Test func twoUsersInFlightAtOnceNeverShareAnAnswer() async throws {
            let server = try TestServer { request in
                ScriptedResponse.text(request.header("X-API-Key") ?? "none").delayed(by: 1)
            }
            defer { server.stop() }
            let inFlight = InFlightRequests()
            func user(_ key: String) -> MiddlewareEndpoint {
                let store = CredentialStore(credential: { .header(name: "X-API-Key", value: key) }, refresh: { _ in .failed })
                return MiddlewareEndpoint(
                    host: server.baseURL, endpoint: "me",
                    middlewares: [AuthorizationMiddleware(store, host: server.baseURL), DeduplicationMiddleware(sharing: inFlight)])
            }
            let alice = user("alice-key")
            let bob = user("bob-key")
            let aliceFirst = Task { await alice.request(type: String.self) }
            #expect(await server.received(1))
            let bobCall = Task { await bob.request(type: String.self) }
            let aliceSecond = Task { await alice.request(type: String.self) }
            #expect(await Self.waiting(1, in: inFlight))
            #expect(await server.received(2), "Bob's request goes out while Alice's is in flight")
            #expect(await aliceFirst.value == .success("alice-key"))
            #expect(await aliceSecond.value == .success("alice-key"))
            #expect(await bobCall.value == .success("bob-key"))
            #expect(server.requests.count == 2)
        }

        @Test func differentHeadersAreDifferentRequests() async throws {
            let server = try Self.countingServer()
            defer { server.stop() }
            let inFlight = InFlightRequests()
            var english = Self.endpoint(server, inFlight: inFlight)
            english.headers = ["Accept-Language": "en"]
            var french = english
            french.headers = ["Accept-Language": "fr"]
            async let first = english.request(type: String.self)
            async let second = french.request(type: String.self)
            let answers = await [first, second]
            #expect(server.requests.count == 2)
            #expect(Set(answers.compactMap { try? $0.get() }).count == 2)
        }
    }
}
