import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

@testable import GoldenSOGPetstore

/// swift-openapi-generator's feature-dense petstore as generated: query styles, headers, JSON,
/// form, octet-stream and multipart bodies, open enums, oneOf, recursion and dates.
struct SOGPetstoreBehaviourTests {
    static let ok = StubTransport { request in
        request.method == .get ? .json("[]") : .json(#"{"id": 1, "name": "Fluffz"}"#, status: 201)
    }

    @Test func listPetsWritesEachQueryStyleAndTheHeader() async throws {
        let stub = StubTransport { _ in .json("[]") }
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await withTransport(stub) {
            try await SOGPetstore.listPets(
                filter: ListPetsFilter(name: "Rex"), limit: 10, habitat: .water, feeds: [.omnivore, .carnivore], myRequestUUID: "u-1",
                sort: ListPetsSort(id: "7"), since: since
            ).get()
        }
        let request = try #require(stub.lastRequest)
        #expect(request.method == .get)
        #expect(request.path == "/api/pets")
        #expect(request.queryValues(for: "feeds") == ["omnivore", "carnivore"])
        #expect(request.queryValues(for: "sort[id]") == ["7"])
        #expect(request.queryValues(for: "filter[name]") == ["Rex"])
        #expect(request.queryValues(for: "habitat") == ["water"])
        #expect(request.queryValues(for: "limit") == ["10"])
        #expect(request.queryValues(for: "since") == ["2023-11-14T22:13:20Z"])
        #expect(request.headers["My-Request-UUID"] == "u-1")
    }

    @Test func createPetSendsJSONAndAJSONHeader() async throws {
        let stub = StubTransport { _ in .json(#"{"id": 1, "name": "Fluffz", "kind": "dragon"}"#, status: 201) }
        let pet = try await withTransport(stub) {
            try await SOGPetstore.createPet(xExtraArguments: CodeError(code: 3), CreatePetRequest(name: "Fluffz", kind: .cat)).get()
        }
        // An enum value the document does not list is kept, not a decoding failure.
        #expect(pet.kind?.rawValue == "dragon")
        let request = try #require(stub.lastRequest)
        #expect(request.method == .post)
        #expect(request.path == "/api/pets")
        #expect(request.bodyText == #"{"kind":"cat","name":"Fluffz"}"#)
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["X-Extra-Arguments"] == #"{"code":3}"#)
    }

    @Test func formOctetStreamMultipartAndBodylessOperations() async throws {
        let stub = Self.ok
        _ = await withTransport(stub) { await SOGPetstore.createPetWithForm(CreatePetRequest(name: "A B", tag: "x")) }
        #expect(stub.lastRequest?.path == "/api/pets/create")
        #expect(stub.lastRequest?.bodyText == "name=A%20B&tag=x")

        _ = await withTransport(stub) { await SOGPetstore.uploadAvatarForPet(petId: 5, Data([1, 2, 3])) }
        #expect(stub.lastRequest?.method == .put)
        #expect(stub.lastRequest?.path == "/api/pets/5/avatar")
        #expect(stub.lastRequest?.body == Data([1, 2, 3]))
        #expect(stub.lastRequest?.headers["Content-Type"] == "application/octet-stream")

        var form = MultipartFormData(boundary: "b")
        form.append("hello", name: "log")
        _ = await withTransport(stub) { await SOGPetstore.multipartUploadTyped(form) }
        #expect(stub.lastRequest?.headers["Content-Type"] == "multipart/form-data; boundary=b")
        #expect(stub.lastRequest?.bodyText?.contains("name=\"log\"") == true)

        _ = await withTransport(stub) { await SOGPetstore.updatePet(petId: 9) }
        #expect(stub.lastRequest?.method == .patch)
        #expect(stub.lastRequest?.path == "/api/pets/9")
        #expect(stub.lastRequest?.body.isEmpty == true)

        _ = await withTransport(stub) { await SOGPetstore.postStats(PetStats(count: 2)) }
        #expect(stub.lastRequest?.bodyText == #"{"count":2}"#)

        _ = await withTransport(stub) { await SOGPetstore.probe() }
        #expect(stub.lastRequest?.method == .post)
        #expect(stub.lastRequest?.path == "/api/probe/")

        _ = await withTransport(stub) { await SOGPetstore.getStats() }
        #expect(stub.lastRequest?.path == "/api/pets/stats")
        _ = await withTransport(stub) { await SOGPetstore.multipartDownloadTyped() }
        #expect(stub.lastRequest?.path == "/api/pets/multipart-typed")
    }

    @Test func datesDecodeWithAndWithoutFractionalSeconds() throws {
        let json = Data(#"["2024-05-01T10:00:00Z", "2024-05-01T10:00:00.250Z"]"#.utf8)
        let dates = try SOGPetstoreAPI.jsonDecoder.decode([DOB].self, from: json)
        #expect(dates[1].timeIntervalSince(dates[0]) == 0.25)
    }

    @Test func recursiveSchemasDecodeAndKeepValueSemantics() throws {
        let json = Data(#"{"name": "child", "parent": {"name": "parent"}}"#.utf8)
        var pet = try SOGPetstoreAPI.jsonDecoder.decode(RecursivePet.self, from: json)
        #expect(pet.parent?.name == "parent")
        #expect(pet.parent?.parent == nil)
        let copy = pet
        pet.parent = nil
        #expect(copy.parent?.name == "parent")
        #expect(
            String(decoding: try SOGPetstoreAPI.jsonEncoder.encode(copy), as: UTF8.self) == #"{"name":"child","parent":{"name":"parent"}}"#)
    }
}
