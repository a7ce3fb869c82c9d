import EndpointRouter
import Foundation
import HTTPTestServer
import Testing

/// The generator's committed petstore output (`OpenAPIGenerator/Goldens/Petstore`, compiled into
/// this target) driven through the default transport against the in-process server: what reaches
/// the wire and what the generated models make of real responses.
///
/// Serialized because `PetstoreAPI.configuration` is process-wide and each test points it at its
/// own server.
@Suite("Generated petstore against a local server", .serialized)
struct PetstoreEndToEndTests {
    @Test func listPetsSendsTheLimitAsAQueryItemAndDecodesThePets() async throws {
        let server = try TestServer(
            response: .json(#"[{"id": 1, "name": "Rex", "tag": "dog"}, {"id": 9007199254740993, "name": "Tom"}]"#))
        defer { server.stop() }
        PetstoreAPI.configuration.use(server: server.baseURL + "/v1")

        let pets = try await Petstore.listPets(limit: 20).get()
        #expect(pets == [Pet(id: 1, name: "Rex", tag: "dog"), Pet(id: 9_007_199_254_740_993, name: "Tom")])
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.target == "/v1/pets?limit=20")
        #expect(request.header("Accept") == "application/json")
        #expect(request.body.isEmpty)

        _ = try await Petstore.listPets().get()
        #expect(server.requests.last?.target == "/v1/pets")
    }

    @Test func createPetsPostsWithoutABodyAndAcceptsAnEmptyCreatedAnswer() async throws {
        let server = try TestServer(response: .status(201))
        defer { server.stop() }
        PetstoreAPI.configuration.use(server: server.baseURL + "/v1")

        _ = try await Petstore.createPets().get()
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/v1/pets")
        #expect(request.body.isEmpty)
        #expect(request.header("Content-Type") == nil)
    }

    @Test func showPetByIdEscapesThePathValueAsOneSegment() async throws {
        let server = try TestServer(response: .json(#"{"id": 7, "name": "a b/7"}"#))
        defer { server.stop() }
        PetstoreAPI.configuration.use(server: server.baseURL + "/v1")

        let pet = try await Petstore.showPetById(petId: "a b/7?").get()
        #expect(pet == Pet(id: 7, name: "a b/7"))
        #expect(server.requests.first?.method == "GET")
        #expect(server.requests.first?.target == "/v1/pets/a%20b%2F7%3F")
    }

    @Test func aDocumentedErrorAnswerIsReadAsItsDocumentedType() async throws {
        let server = try TestServer(
            response: .status(404, headers: [("Content-Type", "application/json")], body: #"{"code": 404, "message": "no pet 8"}"#))
        defer { server.stop() }
        PetstoreAPI.configuration.use(server: server.baseURL + "/v1")

        let result = await Petstore.showPetById(petId: "8")
        guard case .failure(let error) = result else {
            Issue.record("expected a failure for a 404 answer, got \(result)")
            return
        }
        guard case .unacceptableStatusCode(let response) = error else {
            Issue.record("expected .unacceptableStatusCode, got \(error)")
            return
        }
        #expect(response.statusCode == 404)
        #expect(PetstoreAPI.documentedError(error, as: PetstoreError.self) == PetstoreError(code: 404, message: "no pet 8"))
        #expect(PetstoreAPI.documentedError(error, as: Pet.self) == nil)
    }

    @Test func aPathValueThatWouldClimbIsRefusedBeforeAnythingIsSent() async throws {
        let server = try TestServer(response: .json("{}"))
        defer { server.stop() }
        PetstoreAPI.configuration.use(server: server.baseURL + "/v1")

        let result = await Petstore.showPetById(petId: "..")
        guard case .failure(.invalidPathSegment) = result else {
            Issue.record("expected .invalidPathSegment, got \(result)")
            return
        }
        #expect(server.requests.isEmpty)
    }
}
