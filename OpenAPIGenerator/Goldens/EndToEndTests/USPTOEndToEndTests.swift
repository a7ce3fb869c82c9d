import EndpointRouter
import Foundation
import HTTPTestServer
import Testing

/// The generator's committed USPTO output (`OpenAPIGenerator/Goldens/USPTO`, compiled into this
/// target) against the in-process server: two path values, a form body, free-form JSON answers,
/// and a documented non-2xx answer of a non-object type.
///
/// Serialized because `USPTOAPI.configuration` is process-wide.
@Suite("Generated USPTO client against a local server", .serialized)
struct USPTOEndToEndTests {
    @Test func listDataSetsGetsTheServerRootAndDecodesTheList() async throws {
        let server = try TestServer(
            response: .json(
                #"{"total": 2, "apis": [{"apiKey": "oa_citations", "apiVersionNumber": "v1"}, {"apiKey": "cancer_moonshot"}]}"#))
        defer { server.stop() }
        USPTOAPI.configuration.use(server: server.baseURL + "/ds-api")

        let list = try await USPTO.listDataSets().get()
        #expect(list.total == 2)
        #expect(list.apis?.map(\.apiKey) == ["oa_citations", "cancer_moonshot"])
        #expect(list.apis?.first?.apiVersionNumber == "v1")
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/ds-api" || request.path == "/ds-api/")
        #expect(request.query == nil)
    }

    @Test func listSearchableFieldsPutsEachPathValueInItsOwnSegment() async throws {
        let server = try TestServer(response: .json(#""{\"fields\": [\"patent_number\"]}""#))
        defer { server.stop() }
        USPTOAPI.configuration.use(server: server.baseURL + "/ds-api")

        let fields = try await USPTO.listSearchableFields(dataset: "oa citations", version: "v1/2").get()
        #expect(fields == #"{"fields": ["patent_number"]}"#)
        #expect(server.requests.first?.method == "GET")
        #expect(server.requests.first?.target == "/ds-api/oa%20citations/v1%2F2/fields")
    }

    @Test func anAnswerThatIsNotAJSONStringIsADecodingFailure() async throws {
        let server = try TestServer(response: .json(#"{"fields": []}"#))
        defer { server.stop() }
        USPTOAPI.configuration.use(server: server.baseURL + "/ds-api")

        let result = await USPTO.listSearchableFields(dataset: "oa_citations", version: "v1")
        guard case .failure(.decodingFailed(let response, let reason)) = result else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
        #expect(response.statusCode == 200)
        #expect(reason.hasPrefix("the body is not a JSON string"))
    }

    @Test func anUnknownDatasetIsReadAsTheDocumentedString() async throws {
        let server = try TestServer(
            response: .status(404, headers: [("Content-Type", "application/json")], body: #""no dataset 'nope'""#))
        defer { server.stop() }
        USPTOAPI.configuration.use(server: server.baseURL + "/ds-api")

        let result = await USPTO.listSearchableFields(dataset: "nope", version: "v1")
        guard case .failure(let error) = result else {
            Issue.record("expected a failure for a 404 answer, got \(result)")
            return
        }
        #expect(USPTOAPI.documentedError(error, as: String.self) == "no dataset 'nope'")
    }

    @Test func performSearchPostsTheFormAndDecodesFreeFormRecords() async throws {
        let server = try TestServer(
            response: .json(#"[{"doc": {"patent_number": "US 9,000,000", "year": 2015, "granted": true, "claims": null}}]"#))
        defer { server.stop() }
        USPTOAPI.configuration.use(server: server.baseURL + "/ds-api")

        let rows = try await USPTO.performSearch(
            dataset: "oa_citations", version: "v1", PerformSearchForm(criteria: "patent_number:[1 TO 2]&x", start: 0, rows: 100)
        ).get()
        #expect(
            rows == [
                ["doc": ["patent_number": .string("US 9,000,000"), "year": .number(2015), "granted": .bool(true), "claims": .null]]
            ])
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/ds-api/oa_citations/v1/records")
        #expect(request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
        #expect(request.bodyText == "criteria=patent_number%3A%5B1%20TO%202%5D%26x&rows=100&start=0")
        #expect(request.header("Content-Length") == String(request.body.count))
    }
}
