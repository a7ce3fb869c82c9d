import Foundation
import Testing

@testable import EndpointRouter

extension Serialized {
    /// What one call may change of its endpoint (timeout, headers, extra middlewares), and the options
    /// an endpoint hands its middlewares.
    @Suite("Per-call overrides and endpoint options")
    struct CallOverridesTests {
        enum Tier: EndpointOptionKey { static let defaultValue = "free" }

        struct OptionsEndpoint: HTTPClient {
            var tier: String?
            let transport: any HTTPTransport
            let middlewares: [any HTTPMiddleware]
            var host: String { "https://api.example.com" }
            var endpoint: String { "x" }
            var headers: [String: String]? { ["X-Client": "endpoint", "Accept": "application/json"] }
            var timeout: TimeInterval? { 30 }
            var options: EndpointOptions {
                var options = EndpointOptions()
                if let tier { options[Tier.self] = tier }
                return options
            }
        }

        struct Record: HTTPMiddleware {
            let label: String
            let seen: Locked<[String]>
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                seen.withLock { $0.append("\(label):\(context.options[Tier.self])") }
                return try await next(request, context)
            }
        }

        @Test func middlewaresReadTheEndpointsOptionsOrTheDefault() async throws {
            let seen = Locked<[String]>([])
            let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200) }
            _ = try await OptionsEndpoint(tier: "gold", transport: transport, middlewares: [Record(label: "m", seen: seen)])
                .request(type: EmptyResponse.self).get()
            _ = try await OptionsEndpoint(tier: nil, transport: transport, middlewares: [Record(label: "m", seen: seen)])
                .request(type: EmptyResponse.self).get()
            #expect(seen.withLock { $0 } == ["m:gold", "m:free"])
        }

        @Test func oneCallsMiddlewaresRunAfterTheEndpointsAndOnlyForThatCall() async throws {
            let seen = Locked<[String]>([])
            let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200) }
            let endpoint = OptionsEndpoint(tier: nil, transport: transport, middlewares: [Record(label: "endpoint", seen: seen)])
            _ = try await endpoint.request(type: EmptyResponse.self, middlewares: [Record(label: "call", seen: seen)]).get()
            _ = try await endpoint.request(type: EmptyResponse.self).get()
            #expect(seen.withLock { $0 } == ["endpoint:free", "call:free", "endpoint:free"])
        }

        @Test func oneCallsHeadersReplaceTheEndpointsOfTheSameName() async throws {
            let sent = Locked<[HeaderFields]>([])
            let transport = ClosureTransport { request in
                sent.withLock { $0.append(request.headers) }
                return IncomingResponse(statusCode: 200)
            }
            let endpoint = OptionsEndpoint(tier: nil, transport: transport, middlewares: [])
            _ = try await endpoint.response(type: EmptyResponse.self, headers: ["x-client": "call", "X-Request-ID": "42"]).get()
            _ = try await endpoint.response(type: EmptyResponse.self).get()
            let headers = sent.withLock { $0 }
            #expect(headers.count == 2)
            #expect(headers.first?["X-Client"] == "call")
            #expect(headers.first?["X-Request-ID"] == "42")
            #expect(headers.first?["Accept"] == "application/json")
            #expect(headers.last?["X-Client"] == "endpoint")
            #expect(headers.last?["X-Request-ID"] == nil)
        }

        @Test func oneCallsHeadersGoThroughTheRequestChecks() async {
            let transport = ClosureTransport { _ in
                Issue.record("a header with CR/LF reached the transport")
                return IncomingResponse(statusCode: 200)
            }
            let result = await OptionsEndpoint(tier: nil, transport: transport, middlewares: [])
                .request(type: EmptyResponse.self, headers: ["X-Evil": "a\r\nInjected: yes"])
            guard case .invalidHeader = result.failure else {
                Issue.record("expected .invalidHeader, got \(result)")
                return
            }
        }

        @Test func oneCallsTimeoutReplacesTheEndpointsDeadline() async throws {
            let remaining = Locked<[Duration]>([])
            let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200) }
            struct Deadline: HTTPMiddleware {
                let remaining: Locked<[Duration]>
                func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError)
                    -> IncomingResponse
                {
                    remaining.withLock { $0.append(context.remainingTime) }
                    return try await next(request, context)
                }
            }
            let endpoint = OptionsEndpoint(tier: nil, transport: transport, middlewares: [Deadline(remaining: remaining)])
            _ = try await endpoint.request(type: EmptyResponse.self, timeout: 2).get()
            _ = try await endpoint.request(type: EmptyResponse.self).get()
            let seen = remaining.withLock { $0 }
            #expect(seen.count == 2)
            #expect(seen.first.map { $0 <= .seconds(2) } == true)
            #expect(seen.last.map { $0 > .seconds(25) } == true)
        }

        @Test func oneCallsShortTimeoutEndsASlowCall() async {
            let transport = ClosureTransport { _ in
                try? await Task.sleep(nanoseconds: 5_000_000_000)
                return IncomingResponse(statusCode: 200)
            }
            let start = ContinuousClock.now
            let result = await OptionsEndpoint(tier: nil, transport: transport, middlewares: [])
                .request(type: EmptyResponse.self, timeout: 0.2)
            #expect(result.failure == .timedOut)
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }
}
