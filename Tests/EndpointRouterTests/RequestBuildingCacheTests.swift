import Foundation
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The per-process shortcuts of request building (host parsed once, headers set in one assignment)
/// must not change what is built.
@Suite("Request building shortcuts")
struct RequestBuildingCacheTests {
    @Test func aBadHostFailsEveryTimeAndNeverPoisonsTheCache() {
        let bad = TestEndpoint(host: "ftp://files.example.com", endpoint: "x")
        for _ in 0..<3 {
            #expect(throws: HTTPClientError.self) { try bad.makeRequest() }
        }
        let credentials = TestEndpoint(host: "https://user:secret@api.example.com", endpoint: "x")
        for _ in 0..<2 {
            do {
                _ = try credentials.makeRequest()
                Issue.record("a host with credentials was accepted")
            } catch {
                #expect(!"\(error)".contains("secret"))
            }
        }
    }

    @Test func eachHostKeepsItsOwnOriginAndBasePath() throws {
        for round in 0..<2 {
            let a = try TestEndpoint(host: "https://a.example.com:8443/api", endpoint: "todos/1").makeRequest()
            let b = try TestEndpoint(host: "http://b.example.com/v2/", endpoint: "todos/1").makeRequest()
            #expect(a.url.absoluteString == "https://a.example.com:8443/api/todos/1", "round \(round)")
            #expect(b.url.absoluteString == "http://b.example.com/v2/todos/1", "round \(round)")
        }
    }

    @Test func moreHostsThanTheCacheHoldsStillBuildCorrectly() throws {
        for index in 0..<(ParsedHosts.capacity * 2 + 3) {
            let request = try TestEndpoint(host: "https://h\(index).example.com/base", endpoint: "x").makeRequest()
            #expect(request.url.absoluteString == "https://h\(index).example.com/base/x")
        }
    }

    @Test func urlRequestCarriesEveryFieldAndJoinsRepeatedNamesUnderTheFirstCasing() {
        var headers = HeaderFields()
        headers.add(name: "X-Dup", value: "a")
        headers.add(name: "Authorization", value: "Bearer t")
        headers.add(name: "x-dup", value: "b")
        let request = OutgoingRequest(
            method: .post, url: URL(string: "https://api.example.com/x") ?? URL(fileURLWithPath: "/"), headers: headers,
            body: .data(Data("{}".utf8))
        )
        .urlRequest
        #expect(request.allHTTPHeaderFields == ["X-Dup": "a,b", "Authorization": "Bearer t"])
        #expect(request.value(forHTTPHeaderField: "x-dup") == "a,b")
        #expect(request.httpMethod == "POST")
        #expect(request.httpBody == Data("{}".utf8))
    }

    @Test func urlRequestWithoutHeadersHasNone() throws {
        let url = try #require(URL(string: "https://api.example.com/x"))
        #expect(OutgoingRequest(url: url).urlRequest.allHTTPHeaderFields?.isEmpty ?? true)
    }
}
