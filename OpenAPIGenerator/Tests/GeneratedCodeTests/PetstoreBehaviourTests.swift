import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

@testable import GoldenPetstore

/// OAI's petstore as generated: every operation's request on the wire, and its answers decoded.
struct PetstoreBehaviourTests {
    @Test func listPetsSendsLimitOnlyWhenSetAndDecodesPets() async throws {
        let stub = StubTransport { _ in .json(#"[{"id": 1, "name": "Rex"}, {"id": 2, "name": "Tom", "tag": "cat"}]"#) }
        let pets = try await withTransport(stub) { try await Petstore.listPets(limit: 5).get() }
        #expect(pets == [Pet(id: 1, name: "Rex"), Pet(id: 2, name: "Tom", tag: "cat")])
        let request = try #require(stub.lastRequest)
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "http://petstore.swagger.io/v1/pets?limit=5")

        _ = await withTransport(stub) { await Petstore.listPets() }
        #expect(stub.lastRequest?.url.absoluteString == "http://petstore.swagger.io/v1/pets")
    }

    @Test func createPetsPostsWithoutBody() async throws {
        let stub = StubTransport { _ in .status(201) }
        _ = try await withTransport(stub) { try await Petstore.createPets().get() }
        let request = try #require(stub.lastRequest)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "http://petstore.swagger.io/v1/pets")
        #expect(request.body.isEmpty)
    }

    @Test func showPetByIdEscapesThePathValueAndRefusesDotSegments() async throws {
        let stub = StubTransport { _ in .json(#"{"id": 7, "name": "a/b"}"#) }
        let pet = try await withTransport(stub) { try await Petstore.showPetById(petId: "a/b?c").get() }
        #expect(pet.name == "a/b")
        #expect(stub.lastRequest?.url.absoluteString == "http://petstore.swagger.io/v1/pets/a%2Fb%3Fc")

        let refused = await withTransport(stub) { await Petstore.showPetById(petId: "..") }
        guard case .failure(.invalidPathSegment(_, .dotSegment)) = refused else {
            Issue.record("expected .invalidPathSegment, got \(refused)")
            return
        }
        #expect(stub.requestCount == 1)
    }

    @Test func aDocumentedErrorBodyIsReadAsTheDocumentedType() async throws {
        let stub = StubTransport { _ in .json(#"{"code": 42, "message": "no such pet"}"#, status: 404) }
        let result = await withTransport(stub) { await Petstore.showPetById(petId: "9") }
        guard case .failure(let error) = result else {
            Issue.record("a 404 must fail")
            return
        }
        #expect(PetstoreAPI.documentedError(error, as: PetstoreError.self) == PetstoreError(code: 42, message: "no such pet"))
        #expect(PetstoreAPI.documentedError(.timedOut, as: PetstoreError.self) == nil)
    }
}
