import Foundation
import Testing

@testable import EndpointRouter

/// Redirects are the library's, not the transport's: these run through a minimal custom transport
/// written here, which performs one exchange and knows nothing of redirects.
@Suite("Redirect rules through a custom transport")
struct RedirectRulesTests {
    /// Answers `/start` on api.example.com with `status` to `location`, anything else with 200, and
    /// records every request it is handed.
    final class RedirectingTransport: HTTPTransport {
        let status: Int
        let location: String
        let received = Locked<[OutgoingRequest]>([])

        init(status: Int, location: String) {
            self.status = status
            self.location = location
        }

        func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
            -> ResponseHead
        {
            received.withLock { $0.append(request) }
            let head =
                request.url.path == "/start"
                ? ResponseHead(statusCode: status, headers: ["Location": location], url: request.url)
                : ResponseHead(statusCode: 200, url: request.url)
            try sink.receive(head)
            return head
        }

        var requests: [OutgoingRequest] { received.withLock { $0 } }
    }

    static let statuses = [301, 302, 303, 307, 308]

    /// RFC 9110 §15.4: 303 turns into GET (HEAD stays HEAD); 301/302 turn only POST into GET;
    /// 307/308 keep both. A dropped body takes its describing headers along.
    @Test(arguments: statuses, RequestMethod.allCases)
    func methodAndBodyOnRedirect(_ status: Int, _ method: RequestMethod) async throws {
        let transport = RedirectingTransport(status: status, location: "/next")
        let carriesBody = method != .get && method != .head
        let endpoint = TestEndpoint(
            host: "https://api.example.com", endpoint: "start", method: method,
            headers: ["Content-Language": "en", "Digest": "sha-256=abc", "X-Kept": "1"],
            body: carriesBody ? .data(Data(#"{"a":1}"#.utf8), contentType: "application/json") : nil,
            transport: transport)
        _ = try await endpoint.request(type: EmptyResponse.self).get()

        let requests = transport.requests
        try #require(requests.count == 2)
        let next = requests[1]
        let becomesGet = status == 303 ? method != .head : (status == 301 || status == 302) && method == .post
        #expect(next.url.absoluteString == "https://api.example.com/next")
        #expect(next.method == (becomesGet ? .get : method))
        #expect(next.bodyText == (becomesGet || !carriesBody ? nil : #"{"a":1}"#))
        for name in ["Content-Type", "Content-Language", "Digest"] where carriesBody || name != "Content-Type" {
            #expect((next.headers[name] != nil) == !becomesGet, "\(name) after \(status) for \(method)")
        }
        #expect(next.headers["X-Kept"] == "1")
    }

    static let credentialHeaders: HeaderFields = [
        "Authorization": "Bearer SECRET", "Proxy-Authorization": "Basic SECRET", "Cookie": "sid=SECRET",
        "X-API-Key": "SECRET", "X-Custom": "kept",
    ]

    /// Credentials, including headers a middleware added and configured extra names, never cross origins.
    @Test(arguments: statuses)
    func credentialsAreStrippedWhenTheOriginChanges(_ status: Int) async throws {
        struct AddCredentials: HTTPMiddleware {
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                var request = request
                for field in RedirectRulesTests.credentialHeaders { request.headers.add(name: field.name, value: field.value) }
                return try await next(request, context)
            }
        }
        let transport = RedirectingTransport(status: status, location: "https://other.example.com/landing")
        _ = try await TestEndpoint(
            host: "https://api.example.com", endpoint: "start",
            redirectPolicy: RedirectPolicy(sensitiveHeaders: ["x-api-key"]),
            transport: transport, middlewares: [AddCredentials()]
        )
        .request(type: EmptyResponse.self).get()
        let requests = transport.requests
        try #require(requests.count == 2)
        #expect(requests[0].headers["Authorization"] == "Bearer SECRET")
        let landed = requests[1]
        #expect(landed.url.host == "other.example.com")
        #expect(!landed.headers.fields.contains { $0.value.contains("SECRET") })
        #expect(landed.headers["X-Custom"] == "kept")
    }

    @Test(arguments: ["http://api.example.com/x", "HTTP://api.example.com/x"])
    func httpsToHttpIsRefused(_ location: String) async throws {
        let transport = RedirectingTransport(status: 302, location: location)
        let result = await TestEndpoint(host: "https://api.example.com", endpoint: "start", transport: transport)
            .request(type: EmptyResponse.self)
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected .transport, got \(result)")
            return
        }
        #expect(error.code == .secureConnectionFailed)
        #expect(transport.requests.count == 1)
    }

    @Test func upperCaseSchemeInLocationIsFollowed() async throws {
        let transport = RedirectingTransport(status: 302, location: "HTTPS://Other.Example.com/landing")
        _ = try await TestEndpoint(host: "https://api.example.com", endpoint: "start", transport: transport)
            .request(type: EmptyResponse.self).get()
        #expect(transport.requests.last?.url.absoluteString.lowercased() == "https://other.example.com/landing")
        #expect(transport.requests.last?.url.scheme == "https")
    }

    /// Whatever is wrong with the `Location`, the caller gets one typed error.
    @Test(arguments: ["http://", "https://:80/x", "http://[::1", "   "])
    func locationThatIsNotAURLGivesOneTypedError(_ location: String) async throws {
        let transport = RedirectingTransport(status: 301, location: location)
        let result = await TestEndpoint(host: "https://api.example.com", endpoint: "start", transport: transport)
            .request(type: EmptyResponse.self)
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected .transport for '\(location)', got \(result)")
            return
        }
        #expect(error.code == .badServerResponse, "for '\(location)'")
        #expect(transport.requests.count == 1)
    }

    @Test func hopLimitComesFromThePolicy() async throws {
        let transport = RedirectingTransport(status: 302, location: "/start")
        let result = await TestEndpoint(
            host: "https://api.example.com", endpoint: "start",
            redirectPolicy: RedirectPolicy(maximumHops: 3), transport: transport
        )
        .request(type: EmptyResponse.self)
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected .transport, got \(result)")
            return
        }
        #expect(error.code == .httpTooManyRedirects)
        #expect(transport.requests.count == 4)
    }
}
