import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests through the default transport to an in-process server: bytes on the wire and every
/// error case, end to end.
@Suite("End to end against a local server")
struct EndToEndTests {
    @Test func getDecodesJSONAndSendsTheExpectedBytes() async throws {
        let body = try fixture("todos.json")
        let server = try TestServer(response: .status(200, headers: [("Content-Type", "application/json")], body: body))
        defer { server.stop() }
        let todos = try await TestEndpoint(
            host: server.baseURL, path: "/v1", endpoint: "todos",
            parameters: ["userId": 1, "q": "a+b c"]
        ).request(type: [Todo].self).get()
        #expect(todos.count == 200)
        #expect(todos.first == Todo(userId: 1, id: 1, title: todos[0].title, completed: todos[0].completed))
        let received = try #require(server.requests.first)
        #expect(received.method == "GET")
        #expect(received.target == "/v1/todos?q=a%2Bb%20c&userId=1")
        #expect(received.header("Accept") == "application/json")
        #expect(received.header("User-Agent") == "EndpointRouter/\(libraryVersion)")
        #expect(received.body.isEmpty)
    }

    @Test func postSendsJSONBodyByteExact() async throws {
        let server = try TestServer(response: .json(#"{"userId":1,"id":201,"title":"x","completed":false}"#, status: 201))
        defer { server.stop() }
        let response = try await TestEndpoint(
            host: server.baseURL, endpoint: "todos", method: .post,
            parameters: ["title": "x", "userId": 1, "completed": false]
        )
        .response(type: Todo.self).get()
        #expect(response.statusCode == 201)
        #expect(response.value.id == 201)
        #expect(response.headers["content-type"] == "application/json")
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.bodyText == #"{"completed":false,"title":"x","userId":1}"#)
        #expect(received.header("Content-Type") == "application/json")
        #expect(received.header("Content-Length") == "42")
    }

    @Test func notFoundCarriesTheErrorPayload() async throws {
        let server = try TestServer(
            response: .status(
                404, headers: [("Content-Type", "application/json")],
                body: try fixture("error-404.json")))
        defer { server.stop() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "todos/9999").request(type: Todo.self)
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode, got \(result)")
            return
        }
        #expect(response.statusCode == 404)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(try response.decode(APIError.self) == APIError(error: "not_found", message: "No todo with id 9999"))
        #expect(result.failure?.localizedDescription.contains("404") == true)
    }

    @Test func widenedAcceptableStatusCodesAcceptA404() async throws {
        let server = try TestServer(response: .json(#"{"error":"not_found","message":"m"}"#, status: 404))
        defer { server.stop() }
        let value = try await TestEndpoint(host: server.baseURL, endpoint: "x", acceptableStatusCodes: 200..<500)
            .request(type: APIError.self).get()
        #expect(value.error == "not_found")
    }

    @Test func invalidJSONIsDecodingFailedWithTheRawBody() async throws {
        let server = try TestServer(response: .status(200, body: try fixture("malformed.json")))
        defer { server.stop() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "todos/1").request(type: Todo.self)
        guard case .failure(.decodingFailed(let response, let reason)) = result else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
        #expect(response.data == (try fixture("malformed.json")))
        #expect(reason.contains("invalid data"), "\(reason)")
    }

    @Test func wrongTypeNamesTheCodingPath() async throws {
        let server = try TestServer(response: .status(200, body: try fixture("wrong-types.json")))
        defer { server.stop() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "todos/1").request(type: Todo.self)
        guard case .failure(.decodingFailed(_, let reason)) = result else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
        #expect(reason.contains("'id'"), "\(reason)")
        #expect(reason.contains("Int"), "\(reason)")
    }

    @Test func noContentDecodesAsEmptyResponse() async throws {
        let server = try TestServer(response: .status(204))
        defer { server.stop() }
        let endpoint = TestEndpoint(host: server.baseURL, endpoint: "todos/1", method: .delete)
        let empty = await endpoint.request(type: EmptyResponse.self)
        #expect(empty == .success(EmptyResponse()))
        let asTodo = await endpoint.request(type: Todo.self)
        guard case .failure(.decodingFailed(let response, let reason)) = asTodo else {
            Issue.record("expected .decodingFailed, got \(asTodo)")
            return
        }
        #expect(response.statusCode == 204)
        #expect(reason.contains("body is empty"))
    }

    @Test func headReturnsNoBody() async throws {
        let server = try TestServer(response: .status(200, headers: [("X-Total", "7")], body: "ignored"))
        defer { server.stop() }
        let response = try await TestEndpoint(host: server.baseURL, endpoint: "todos", method: .head)
            .response(type: EmptyResponse.self).get()
        #expect(response.data.isEmpty)
        #expect(response.headers["x-total"] == "7")
        #expect(server.requests.first?.method == "HEAD")
    }

    @Test func dataAndStringGetTheRawBody() async throws {
        let text = try fixture("hello.txt")
        let server = try TestServer(response: .status(200, headers: [("Content-Type", "text/plain")], body: text))
        defer { server.stop() }
        let endpoint = TestEndpoint(host: server.baseURL, endpoint: "hello")
        #expect(try await endpoint.request(type: Data.self).get() == text)
        #expect(try await endpoint.request(type: String.self).get() == "Hello, EndpointRouter! ü é ✓\n")
    }

    @Test func invalidUTF8IsNotAString() async throws {
        let server = try TestServer(response: .status(200, body: Data([0xFF, 0xFE, 0x00])))
        defer { server.stop() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "x").request(type: String.self)
        guard case .failure(.decodingFailed(_, let reason)) = result else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
        #expect(reason.contains("UTF-8"))
    }

    @Test func closedPortIsATransportError() async throws {
        let url = "http://127.0.0.1:\(try RawServer.closedPort())"
        let result = await TestEndpoint(host: url, endpoint: "x").request(type: Data.self)
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected .transport, got \(result)")
            return
        }
        #expect(error.code == .cannotConnectToHost)
    }

    @Test func serverClosingWithoutResponseIsATransportError() async throws {
        let server = try TestServer(response: .closeWithoutResponse)
        defer { server.stop() }
        let result = await TestEndpoint(host: server.baseURL, endpoint: "x").request(type: Data.self)
        guard case .failure(.transport) = result else {
            Issue.record("expected .transport, got \(result)")
            return
        }
    }

    @Test func multipartAndFormArriveByteExact() async throws {
        let server = try TestServer(response: .status(200))
        defer { server.stop() }
        var form = MultipartFormData(boundary: "b0undary")
        form.append("v", name: "k")
        form.append(Data([1, 2, 3]), name: "f", fileName: "f.bin")
        let multipart = TestEndpoint(host: server.baseURL, endpoint: "upload", method: .post, body: .multipart(form))
        _ = try await multipart.request(type: EmptyResponse.self).get()
        let formRequest = TestEndpoint(host: server.baseURL, endpoint: "login", method: .post, body: .form(["a": "1 2"]))
        _ = try await formRequest.request(type: EmptyResponse.self).get()
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.body == (try form.encode()))
        #expect(requests.first?.header("Content-Type") == "multipart/form-data; boundary=b0undary")
        #expect(requests.last?.bodyText == "a=1%202")
        #expect(requests.last?.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test func responseHeadersAreCaseInsensitive() async throws {
        let server = try TestServer(response: .status(200, headers: [("X-Mixed-Case", "1"), ("x-lower", "2")]))
        defer { server.stop() }
        let response = try await TestEndpoint(host: server.baseURL, endpoint: "x").response(type: EmptyResponse.self).get()
        #expect(response.headers["x-mixed-case"] == "1")
        #expect(response.headers["X-LOWER"] == "2")
    }
}
