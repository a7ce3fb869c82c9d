import EndpointRouter
import EndpointRouterOpenAPI
import EndpointRouterTesting
import Foundation
import Testing

@testable import GoldenUSPTO

/// USPTO's data set API as generated: a templated server, path values, a form POST, and the
/// document's example.
struct USPTOBehaviourTests {
    @Test func listDataSetsGoesToTheDefaultServerAndDecodesTheDocumentedExample() async throws {
        let document = try DocumentExamples.document("oai-uspto-3.0.yaml")
        let example = try #require(DocumentExamples.all(in: document).first { $0.pointer.tokens.contains("/") })
        let stub = StubTransport { _ in .data(example.json, headers: ["Content-Type": "application/json"]) }
        let list = try await withTransport(stub) { try await USPTO.listDataSets().get() }
        #expect(list.total == 2)
        #expect(list.apis?.map(\.apiKey) == ["oa_citations", "cancer_moonshot"])
        let request = try #require(stub.lastRequest)
        #expect(request.method == .get)
        #expect(request.url.absoluteString.hasPrefix("https://developer.uspto.gov/ds-api"))
        #expect(USPTOAPI.server1(scheme: "http") == "http://developer.uspto.gov/ds-api")
    }

    @Test func listSearchableFieldsPutsBothPathValuesInTheirSegments() async throws {
        let stub = StubTransport { _ in .json(#""fields \"a\"""#) }
        let fields = await withTransport(stub) { await USPTO.listSearchableFields(dataset: "oa citations", version: "v1") }
        // A JSON string schema: the text decoded, not the quoted JSON.
        #expect(try fields.get() == #"fields "a""#)
        #expect(stub.lastRequest?.method == .get)
        #expect(stub.lastRequest?.url.absoluteString == "https://developer.uspto.gov/ds-api/oa%20citations/v1/fields")
    }

    @Test func performSearchPostsAForm() async throws {
        let stub = StubTransport { _ in .json(#"[{"a": {"b": 1}}]"#) }
        let rows = try await withTransport(stub) {
            try await USPTO.performSearch(dataset: "oa_citations", version: "v1", PerformSearchForm(criteria: "*:*", start: 0, rows: 100))
                .get()
        }
        #expect(rows == [["a": ["b": .number(1)]]])
        let request = try #require(stub.lastRequest)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://developer.uspto.gov/ds-api/oa_citations/v1/records")
        #expect(request.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
        #expect(request.bodyText == "criteria=%2A%3A%2A&rows=100&start=0")
    }

    @Test func everyExampleOfTheDocumentDecodes() throws {
        let document = try DocumentExamples.document("oai-uspto-3.0.yaml")
        let examples = DocumentExamples.all(in: document)
        #expect(examples.count == 3)
        for (pointer, json) in examples {
            // The two parameter examples are path values (strings); the response example a DataSetList.
            if pointer.tokens.contains("parameters") {
                #expect(try USPTOAPI.jsonDecoder.decode(String.self, from: json).isEmpty == false)
            } else {
                #expect(try USPTOAPI.jsonDecoder.decode(DataSetList.self, from: json).apis?.count == 2, "\(pointer)")
            }
        }
    }
}
