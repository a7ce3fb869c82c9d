import EndpointRouter
import Foundation
import Testing

/// `EndpointResponse.decode(_:)` (reading an API's error payload) fails with `.decodingFailed` whose
/// reason names the failing field by its path, indices included.
@Suite("Decoding failure messages")
struct DecodingFailureMessageTests {
    struct Item: Decodable { let id: Int }

    func response(_ json: String) -> EndpointResponse<Data> {
        let data = Data(json.utf8)
        return EndpointResponse(
            value: data, statusCode: 422, headers: HeaderFields(), data: data,
            request: OutgoingRequest(url: URL(fileURLWithPath: "/")), url: nil)
    }

    func reason(decoding json: String, as type: (some Decodable).Type) -> String? {
        do {
            _ = try response(json).decode(type)
            return nil
        } catch {
            guard case .decodingFailed(let kept, let reason) = error else { return "unexpected \(error)" }
            #expect(kept.data == Data(json.utf8), "the failure keeps the body for the caller")
            return reason
        }
    }

    @Test func nullWhereAValueIsRequiredNamesTheField() {
        let text = reason(decoding: #"{"id": null}"#, as: Item.self)
        #expect(text?.hasPrefix("missing value at 'id': expected Int") == true, "\(text ?? "no error")")
    }

    @Test func aWrongElementInAnArrayNamesItsIndex() {
        let text = reason(decoding: #"[{"id": 1}, {"id": "two"}]"#, as: [Item].self)
        #expect(text?.hasPrefix("type mismatch at '[1].id': expected Int") == true, "\(text ?? "no error")")
    }

    /// A dictionary's key is data from the body, not a name in code: it may be a secret, and error
    /// texts end up in logs. The path shows `[<key>]` in its place; declared names and indices stay.
    @Test func aDictionaryKeyIsNeverQuoted() {
        struct Wallet: Decodable { let balances: [String: [Item]] }
        let cases: [(json: String, type: any Decodable.Type, path: String)] = [
            (#"{"sk_live_SECRET": "x"}"#, [String: Int].self, "'[<key>]'"),
            (#"{"balances": {"sk_live_SECRET": [{"id": 1}, {"id": "x"}]}}"#, Wallet.self, "'balances[<key>][1].id'"),
            (#"{"7": "x"}"#, [Int: Int].self, "'[<key>]'"),
        ]
        for (json, type, path) in cases {
            let text = reason(decoding: json, as: type) ?? "no error"
            #expect(text.hasPrefix("type mismatch at \(path)"), "\(text)")
            #expect(!text.contains("SECRET") && !text.contains("7'"), "\(text)")
        }
    }

    /// The same rule through `request(type:)`: a body's dictionary key is not in the error.
    @Test func aDictionaryKeyIsNeverQuotedByRequest() async {
        let endpoint = TestEndpoint(
            transport: ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data(#"{"sk_live_SECRET": "x"}"#.utf8)) })
        guard case .failure(.decodingFailed(_, let text)) = await endpoint.request(type: [String: Int].self) else {
            Issue.record("expected .decodingFailed")
            return
        }
        #expect(!text.contains("SECRET"), "\(text)")
    }

    @Test func aValidPayloadDecodes() throws {
        #expect(try response(#"{"id": 7}"#).decode(Item.self).id == 7)
    }

    @Test func emptyResponseAcceptsAnyBody() throws {
        #expect(try JSONDecoder().decode(EmptyResponse.self, from: Data(#"{"anything": [1, 2]}"#.utf8)) == EmptyResponse())
        #expect(try response("[]").decode(EmptyResponse.self) == EmptyResponse())
    }
}
