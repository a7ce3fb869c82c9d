import EndpointRouter
import EndpointRouterHTTPTypes
import Foundation
import HTTPTypes
import Testing

@Suite("Conversions to and from swift-http-types")
struct HTTPTypesConversionTests {
    @Test("A request's head converts to HTTPTypes and back unchanged, repeated fields and casing kept")
    func requestRoundTrip() throws {
        let url = try #require(URL(string: "https://api.example.com:8443/v1/todos%2Fa?page=2&q=a%20b"))
        var headers = EndpointRouter.HeaderFields()
        headers.add(name: "Accept", value: "application/json")
        headers.add(name: "X-Tag", value: "one")
        headers.add(name: "X-Tag", value: "two")
        let request = EndpointRouter.OutgoingRequest(method: .patch, url: url, headers: headers, body: .data(Data("{}".utf8)))

        let head = try HTTPTypes.HTTPRequest(request)
        #expect(head.method == .patch)
        #expect(head.scheme == "https")
        #expect(head.authority == "api.example.com:8443")
        #expect(head.path == "/v1/todos%2Fa?page=2&q=a%20b")
        #expect(head.headerFields[values: .accept] == ["application/json"])
        #expect(head.headerFields[values: HTTPField.Name("x-tag")!] == ["one", "two"])

        let back = try EndpointRouter.OutgoingRequest(head, body: request.body)
        #expect(back == request)
    }

    @Test("A URL without a path goes as '/'; user information never reaches the authority")
    func requestPathAndAuthority() throws {
        let head = try HTTPTypes.HTTPRequest(EndpointRouter.OutgoingRequest(url: try #require(URL(string: "http://me:pw@example.com"))))
        #expect(head.path == "/")
        #expect(head.authority == "example.com")
    }

    @Test("A header EndpointRouter would refuse is refused here too, naming the field and not its value")
    func invalidHeaders() throws {
        let url = try #require(URL(string: "https://api.example.com"))
        for (name, value) in [("X-Token", "a\r\nInjected: yes"), ("Bad Name", "v"), (":path", "/admin")] {
            let request = EndpointRouter.OutgoingRequest(url: url, headers: EndpointRouter.HeaderFields([.init(name: name, value: value)]))
            #expect {
                try HTTPTypes.HTTPRequest(request)
            } throws: { error in
                guard case .invalidHeader(let reason) = error as? HTTPClientError else { return false }
                return reason.contains(name) && !reason.contains("Injected") && !reason.contains("/admin")
            }
        }
    }

    @Test("An HTTPTypes request EndpointRouter cannot send is a typed error")
    func unsupportedRequests() throws {
        let propfind = HTTPTypes.HTTPRequest(
            method: try #require(.init("PROPFIND")), scheme: "https", authority: "dav.example.com", path: "/")
        #expect(throws: HTTPClientError.self) { try EndpointRouter.OutgoingRequest(propfind) }
        let noAuthority = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/")
        #expect {
            try EndpointRouter.OutgoingRequest(noAuthority)
        } throws: { error in
            if case .badURL = error as? HTTPClientError { true } else { false }
        }
        let asterisk = HTTPTypes.HTTPRequest(method: .options, scheme: "https", authority: "example.com", path: "*")
        #expect(throws: HTTPClientError.self) { try EndpointRouter.OutgoingRequest(asterisk) }
    }

    @Test("A response converts both ways: status, headers in order, body and URL kept on our side")
    func responseRoundTrip() throws {
        var headers = EndpointRouter.HeaderFields()
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "Set-Cookie", value: "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
        headers.add(name: "Content-Type", value: "application/json")
        let url = URL(string: "https://api.example.com/x")
        let response = EndpointRouter.IncomingResponse(statusCode: 201, headers: headers, body: Data("{}".utf8), url: url)

        let head = try HTTPTypes.HTTPResponse(response)
        #expect(head.status == .created)
        #expect(head.headerFields[values: .setCookie] == ["a=1", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT"])

        let back = EndpointRouter.IncomingResponse(head, body: response.body, url: url)
        #expect(back == response)
    }

    @Test("A status HTTPTypes cannot hold is .invalidResponse, not a crash")
    func invalidStatus() {
        for status in [-1, 42, 1000] {
            #expect(throws: HTTPClientError.invalidResponse) { try HTTPTypes.HTTPResponse(ResponseHead(statusCode: status)) }
        }
    }
}
