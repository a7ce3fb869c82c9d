import EndpointRouter
import Foundation
import Testing

/// `replace` leaves one field where several were, and `dictionary` folds repeated names the way
/// HTTP does (RFC 9110 §5.3: values joined with ", ", in order).
@Suite("HeaderFields: replace and dictionary")
struct HeaderFieldsMergingTests {
    @Test func replaceKeepsOneFieldAtThePositionOfTheFirst() {
        var headers = HeaderFields()
        headers.add(name: "Accept", value: "a")
        headers.add(name: "X-Trace", value: "1")
        headers.add(name: "accept", value: "b")
        headers.add(name: "ACCEPT", value: "c")
        headers.add(name: "X-Other", value: "2")
        headers.replace(name: "Accept", value: "application/json")
        #expect(headers.map { "\($0.name): \($0.value)" } == ["Accept: application/json", "X-Trace: 1", "X-Other: 2"])
    }

    @Test func dictionaryJoinsRepeatedNamesUnderTheFirstCasing() {
        var headers = HeaderFields()
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "Content-Type", value: "text/plain")
        headers.add(name: "cache-control", value: "no-store")
        headers.add(name: "CACHE-CONTROL", value: "max-age=0")
        #expect(headers.dictionary == ["Cache-Control": "no-cache, no-store, max-age=0", "Content-Type": "text/plain"])
    }
}
