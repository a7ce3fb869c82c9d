import EndpointRouter
import EndpointRouterHTTPTypes
import EndpointRouterTesting
import Foundation
import HTTPTypes
import Testing

// A file as a Hummingbird 2 app writes it: HTTPTypes imported beside EndpointRouter, the service
// enum and the middleware written as the README writes them, with no name qualified and no
// typealias: HTTPTypes declares none of EndpointRouter's names. This file failing to compile is the
// test: CI builds it with the rest of the package.

struct Pet: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

enum PetAPI: HTTPClient {
    case pet(id: Int)
    case adopt(Pet)

    static let transport = StubTransport { request in
        request.method == .post ? .status(201) : .json(#"{"id":7,"name":"Rex"}"#)
    }

    var host: String { "https://pets.example.com" }
    var endpoint: String {
        switch self {
        case .pet(let id): "pets/\(segment: id)"
        case .adopt: "adoptions"
        }
    }
    var method: RequestMethod { if case .adopt = self { .post } else { .get } }
    var body: EndpointBody? { if case .adopt(let pet) = self { .json(pet) } else { nil } }
    var transport: any HTTPTransport { Self.transport }
    var middlewares: [any HTTPMiddleware] { [RequestID(value: "req-1")] }
}

/// Passes on the ID of the server request being handled, as the README's middleware example does.
struct RequestID: HTTPMiddleware {
    let value: String
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        var request = request
        request.headers["X-Request-ID"] = value
        return try await next(request, context)
    }
}

@Suite("A Hummingbird-style module: HTTPTypes beside EndpointRouter")
struct HTTPTypesAppTests {
    @Test("The service enum and middleware compile and run; HTTPTypes' own types keep their names")
    func serviceAndMiddleware() async throws {
        let pet = try await PetAPI.pet(id: 7).request(type: Pet.self).get()
        #expect(pet == Pet(id: 7, name: "Rex"))
        let result: Result<EmptyResponse, HTTPClientError> = await PetAPI.adopt(pet).request(type: EmptyResponse.self)
        #expect(throws: Never.self) { try result.get() }

        let sent = PetAPI.transport.capturedRequests
        #expect(sent.map { $0.headers["X-Request-ID"] } == ["req-1", "req-1"])
        // What a Hummingbird handler would hand on: the request as swift-http-types sees it.
        let head: HTTPRequest = try HTTPRequest(sent[1].request)
        #expect(head.method == .post)
        #expect(head.path == "/adoptions")
        #expect(head.headerFields[HTTPField.Name("X-Request-ID")!] == "req-1")
    }
}
