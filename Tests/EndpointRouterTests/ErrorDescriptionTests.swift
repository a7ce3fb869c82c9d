import Foundation
import Testing

@testable import EndpointRouter

/// Error descriptions end up in logs and crash reports: no query value, userinfo or body in them.
@Suite("Error descriptions without secrets")
struct ErrorDescriptionTests {
    static let secrets = ["hunter2", "K3Y", "T0K", "s3cr3t"]

    static func expectNoSecret(_ error: HTTPClientError?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else {
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return
        }
        for text in [error.description, error.localizedDescription, String(describing: error), "\(error)"] {
            for secret in secrets {
                #expect(!text.contains(secret), "'\(secret)' in: \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    static let redactions: [(String, String)] = [
        ("https://api.example.com/v1/items", "https://api.example.com/v1/items"),
        ("https://api.example.com/v1/login?api_key=K3Y&token=T0K", "https://api.example.com/v1/login?api_key=<redacted>&token=<redacted>"),
        ("https://user:hunter2@api.example.com:8443/x?q=1#frag", "https://<redacted>@api.example.com:8443/x?q=<redacted>"),
        ("http://hunter2@api.example.com/x", "http://<redacted>@api.example.com/x"),
        ("https://api.example.com/x?T0K", "https://api.example.com/x?<redacted>"),
        ("https://api.example.com/x?a=&b==T0K&&c", "https://api.example.com/x?a=<redacted>&b=<redacted>&&<redacted>"),
        ("https://api.example.com/a@b/c", "https://api.example.com/a@b/c"),
        // A malformed host: only a slash ends a lone URL's authority, so a space or a quote in the
        // userinfo leaves none of the password visible.
        ("https://us er:pa ss'w@api.example.com/x", "https://<redacted>@api.example.com/x"),
        ("https://api.example.com/to/http://u:pw@inner.example/", "https://api.example.com/to/http://<redacted>@inner.example/"),
        ("search?token=T0K", "search?token=<redacted>"),
        ("https://api.example.com/x#token=T0K", "https://api.example.com/x"),
        ("", ""),
    ]

    @Test(arguments: redactions)
    func redactedURL(_ input: String, _ expected: String) {
        #expect(RedactedURL.text(of: input) == expected)
    }

    /// A sentence quoting URLs (libcurl's about a proxy) keeps everything but their passwords.
    @Test(arguments: [
        ("Unsupported proxy scheme for 'gopher9://u:pw@127.0.0.1:9'", "Unsupported proxy scheme for 'gopher9://<redacted>@127.0.0.1:9'"),
        ("Unsupported proxy syntax in 'http://u:pw@'", "Unsupported proxy syntax in 'http://<redacted>@'"),
        ("from http://a:b@x/p@q to https://c@d.example", "from http://<redacted>@x/p@q to https://<redacted>@d.example"),
        ("Could not resolve proxy: proxy.example", "Could not resolve proxy: proxy.example"),
        ("no authority: http:// then @ later", "no authority: http:// then @ later"),
        ("", ""),
    ])
    func credentialsHiddenInASentence(_ input: String, _ expected: String) {
        #expect(RedactedURL.hidingCredentials(in: input) == expected)
    }

    @Test func unacceptableStatusShowsNeitherQueryValuesNorUserinfoNorBody() throws {
        let url = try #require(URL(string: "https://user:hunter2@api.example.com/v1/login?api_key=K3Y&token=T0K"))
        let body = Data(#"{"password":"hunter2"}"#.utf8)
        let response = EndpointResponse(
            value: body, statusCode: 401, headers: HeaderFields(), data: body,
            request: OutgoingRequest(url: url), url: url)
        let error = HTTPClientError.unacceptableStatusCode(response)
        #expect(
            error.description == "https://<redacted>@api.example.com/v1/login?api_key=<redacted>&token=<redacted> answered "
                + "with status 401; its body (22 bytes) is in the error's `response`.")
        Self.expectNoSecret(error)
        #expect(error.response?.data == body, "the body stays available to the caller")
    }

    @Test func unacceptableStatusThroughThePipeline() async {
        let transport = ClosureTransport { request in
            IncomingResponse(statusCode: 403, body: Data(#"{"password":"hunter2"}"#.utf8), url: request.url)
        }
        let result = await TestEndpoint(endpoint: "login", parameters: ["api_key": "K3Y", "token": "T0K"], transport: transport)
            .request(type: Data.self)
        Self.expectNoSecret(result.failure)
        #expect(result.failure?.description.contains("https://api.example.com/login?api_key=<redacted>&token=<redacted>") == true)
    }

    @Test func emptyBodyIsNotMentioned() {
        let url = URL(string: "https://api.example.com/x")
        let response = EndpointResponse(
            value: Data(), statusCode: 500, headers: HeaderFields(), data: Data(),
            request: OutgoingRequest(url: url ?? fixturesDirectory), url: url)
        #expect(HTTPClientError.unacceptableStatusCode(response).description == "https://api.example.com/x answered with status 500.")
    }

    @Test func decodingFailureShowsNoBody() async {
        let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data(#"{"password":"hunter2"}"#.utf8)) }
        let wrongShape = await TestEndpoint(endpoint: "x", transport: transport).request(type: [Int].self)
        Self.expectNoSecret(wrongShape.failure)
        let notJSON = ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data("token T0K hunter2".utf8)) }
        let corrupt = await TestEndpoint(endpoint: "x", transport: notJSON).request(type: [Int].self)
        Self.expectNoSecret(corrupt.failure)
    }

    @Test func badHostShowsNoCredentialsOrQueryValues() {
        for host in [
            "https://user:hunter2@api.example.com", "https://api.example.com?api_key=K3Y", "https://api.example.com#T0K",
            "ftp://user:hunter2@api.example.com/?api_key=K3Y",
        ] {
            let error = #expect(throws: HTTPClientError.self) { try TestEndpoint(host: host, endpoint: "x").makeRequest() }
            Self.expectNoSecret(error)
        }
    }

    @Test func requestCheckShowsNoCredentialsOrQueryValues() async {
        struct Rewrite: HTTPMiddleware {
            func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
                var request = request
                request.url = URL(string: "ftp://user:hunter2@files.example.com/x?api_key=K3Y") ?? request.url
                return try await next(request, context)
            }
        }
        let transport = ClosureTransport { _ in IncomingResponse(statusCode: 200) }
        let result = await TestEndpoint(endpoint: "x", transport: transport, middlewares: [Rewrite()]).request(type: Data.self)
        guard case .badURL = result.failure else {
            Issue.record("expected .badURL, got \(String(describing: result.failure))")
            return
        }
        Self.expectNoSecret(result.failure)
    }

    @Test func redirectErrorsShowNoCredentialsOrQueryValues() async {
        for location in ["http://user:hunter2@api.example.com/next?code=K3Y", "http://[not a url?code=T0K"] {
            let transport = ClosureTransport { request in
                if request.url.path == "/start" {
                    return IncomingResponse(statusCode: 302, headers: ["Location": location], url: request.url)
                }
                return IncomingResponse(statusCode: 200)
            }
            let result = await TestEndpoint(endpoint: "start", parameters: ["token": "s3cr3t"], transport: transport)
                .request(type: Data.self)
            guard case .transport = result.failure else {
                Issue.record("expected .transport for \(location), got \(String(describing: result.failure))")
                continue
            }
            Self.expectNoSecret(result.failure)
        }
    }

    @Test func otherCasesCarryNoValues() {
        let headerError = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", headers: ["Authorization": "Bearer hunter2\r\nX: y"]).makeRequest()
        }
        Self.expectNoSecret(headerError)
        let encodingError = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "x", parameters: ["password": ["hunter2", Date()]]).makeRequest()
        }
        Self.expectNoSecret(encodingError)
        let segmentError = #expect(throws: HTTPClientError.self) {
            try TestEndpoint(endpoint: "reset/\(segment: "../hunter2")").makeRequest()
        }
        Self.expectNoSecret(segmentError)
        for error in [
            HTTPClientError.timedOut, .cancelled, .invalidResponse, .responseTooLarge(limit: 10),
            .invalidPathSegment(position: 1, reason: .empty),
        ] {
            #expect(!error.description.isEmpty)
        }
    }
}
