import Foundation
import Testing

@testable import EndpointRouter

/// The `curl` command the logging middleware prints must send what the request sent: HEAD as
/// `--head`, a file body by reference, and no body at all rather than a truncated one.
@Suite("curl command")
struct CURLCommandTests {
    let url = URL(string: "https://api.example.com/items") ?? URL(fileURLWithPath: "/")

    @Test func headIsWrittenAsHeadNotAsMethodOverride() {
        let command = CURLCommand.of(OutgoingRequest(method: .head, url: url), redaction: Redaction())
        #expect(command == "curl --head 'https://api.example.com/items'")
    }

    @Test func aFileBodyIsSentFromTheFile() {
        let file = URL(fileURLWithPath: "/tmp/upload it.bin")
        let command = CURLCommand.of(OutgoingRequest(method: .put, url: url, body: .file(file)), redaction: Redaction())
        #expect(command == "curl -X 'PUT' 'https://api.example.com/items' --data-binary '@/tmp/upload it.bin'")
    }

    @Test func aBodyOverTheLimitIsLeftOutAndSaidSo() {
        let body = Data(repeating: UInt8(ascii: "a"), count: CURLCommand.bodyLimit + 1)
        var headers = HeaderFields()
        headers.add(name: "Content-Type", value: "text/plain")
        let command = CURLCommand.of(
            OutgoingRequest(method: .post, url: url, headers: headers, body: .data(body)),
            redaction: Redaction())
        #expect(command.hasSuffix("# body of \(CURLCommand.bodyLimit + 1) bytes left out"))
        #expect(!command.contains("--data-binary"))
        #expect(!command.contains("aaaa"))
    }

    @Test func theDefaultRedactionHidesCredentialLookingNamesOnly() throws {
        let request = OutgoingRequest(
            url: try #require(URL(string: "https://api.example.com/f?AWSAccessKeyId=AKIA-SECRET&Signature=sig-SECRET&Expires=9")),
            headers: ["X-Api-Key": "k-SECRET", "Cookie": "c-SECRET", "Accept": "text/plain", "Keep-Alive": "timeout=5"])
        let command = CURLCommand.of(request, redaction: Redaction())
        #expect(!command.contains("SECRET"), "\(command)")
        #expect(
            command == "curl 'https://api.example.com/f?AWSAccessKeyId=<redacted>&Signature=<redacted>&Expires=9' "
                + "-H 'X-Api-Key: <redacted>' -H 'Cookie: <redacted>' -H 'Accept: text/plain' -H 'Keep-Alive: timeout=5'")
        let revealed = CURLCommand.of(request, redaction: Redaction(revealing: ["Signature", "Cookie"]))
        #expect(revealed.contains("Signature=sig-SECRET"))
        #expect(revealed.contains("'Cookie: <redacted>'"), "a credential header is never revealed")
    }
}
