#if os(Linux)
    import Foundation
    import HTTPTestServer
    import Testing

    @testable import EndpointRouter

    extension Serialized {
        /// libcurl's own timeout, the backstop a second after the call's deadline, for a call the loop
        /// held while its host had no free connection: libcurl counts its timeout from when the transfer
        /// goes on the multi handle, so the backstop must count the time held too. Only a caller of
        /// `CurlTransport.send` without the library's pipeline relies on it: nothing else ends the call.
        /// Among the figures: it bounds when the call ends, in wall-clock time.
        @Suite struct CurlHeldBackstopTests {
            /// Calls `path` with its deadline at `deadline`, straight on the transport, no pipeline.
            static func get(
                _ server: TestServer, _ path: String, until deadline: ContinuousClock.Instant, on transport: CurlTransport
            ) async -> Result<Int, HTTPClientError> {
                guard let url = URL(string: "\(server.baseURL)/\(path)") else { return .failure(.invalidResponse) }
                do {
                    let head = try await transport.send(
                        OutgoingRequest(method: .get, url: url), context: CallContext(endpointName: "Test.held", deadline: deadline),
                        sink: MemoryBodySink(limit: nil))
                    return .success(head.statusCode)
                } catch {
                    return .failure(error)
                }
            }

            /// One connection and a server that never answers. The first call's backstop ends it about
            /// 2 s in; the second, its deadline 2 s in, was held until then and should end a second
            /// later, about 3 s in. Counted from its start on the multi, its backstop (about 2.95 s, set
            /// when it was made) ended it about 5 s in.
            @Test func aHeldCallsBackstopCountsTheTimeItWasHeld() async throws {
                let server = try TestServer { _ in .hang }
                defer { server.stop() }
                let transport = try CurlAdmissionTests.transport(connections: 1)
                defer { transport.shutdown() }
                let start = ContinuousClock.now
                let first = Task { await Self.get(server, "first", until: start + .seconds(1), on: transport) }
                #expect(try await CurlAdmissionTests.requests(1, on: server))
                let held = Task { await Self.get(server, "held", until: start + .seconds(2), on: transport) }
                let heldResult = await boundedValue(of: held, within: 10)
                let took = start.duration(to: .now)
                guard case .failure(.timedOut)? = heldResult else {
                    Issue.record("expected libcurl's timeout, got \(String(describing: heldResult))")
                    return
                }
                #expect(took < .milliseconds(4000), "the held call ended \(took) in")
                #expect(server.requests.map(\.path) == ["/first", "/held"])
                guard case .failure(.timedOut)? = await boundedValue(of: first, within: 5) else {
                    Issue.record("the first call did not end with libcurl's timeout")
                    return
                }
            }
        }
    }
#endif
