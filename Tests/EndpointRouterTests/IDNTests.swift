import Foundation
import Testing

@testable import EndpointRouter

/// RFC 3492 punycode, written here from the RFC as an oracle independent of Foundation, which the
/// library relies on for the conversion.
enum Punycode {
    /// The ASCII form of one label (without the `xn--` prefix); `nil` on overflow.
    static func encode(_ label: String) -> String? {
        let base = 36
        let tMin = 1
        let tMax = 26
        let codePoints = label.unicodeScalars.map { Int($0.value) }
        var output = String(label.unicodeScalars.filter(\.isASCII).map(Character.init))
        let basicCount = output.count
        if basicCount > 0 { output += "-" }
        var n = 128
        var delta = 0
        var bias = 72
        var handled = basicCount
        while handled < codePoints.count {
            guard let next = codePoints.filter({ $0 >= n }).min() else { return nil }
            delta += (next - n) * (handled + 1)
            n = next
            for codePoint in codePoints {
                if codePoint < n { delta += 1 }
                guard codePoint == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return output
    }

    /// The host with every non-ASCII label in its `xn--` form.
    static func host(_ labels: [String]) -> String? {
        var encoded: [String] = []
        for label in labels {
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                encoded.append(label)
            } else {
                guard let ascii = encode(label) else { return nil }
                encoded.append("xn--" + ascii)
            }
        }
        return encoded.joined(separator: ".")
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? 97 + value : 22 + value)))
    }

    private static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / 700 : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((36 - 1) * 26) / 2 {
            delta /= 36 - 1
            k += 36
        }
        return k + (36 * delta) / (delta + 38)
    }
}

@Suite("Internationalised host names")
struct IDNTests {
    /// Samples from RFC 3492 §7.1 and well-known names, to check the oracle itself.
    @Test func oracleMatchesTheRFCSamples() {
        #expect(Punycode.encode("bücher") == "bcher-kva")
        #expect(Punycode.encode("münchen") == "mnchen-3ya")
        #expect(Punycode.encode("\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}") == "ihqwcrb4cv8a8dqg056pqjye")
        #expect(Punycode.encode("3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}") == "3B-ww4c5e180e575a65lsy2b")
        #expect(
            Punycode.encode(
                "\u{0644}\u{064A}\u{0647}\u{0645}\u{0627}\u{0628}\u{062A}\u{0643}\u{0644}\u{0645}\u{0648}\u{0634}\u{0639}\u{0631}\u{0628}\u{064A}\u{061F}"
            )
                == "egbpdaj6bu4bxfgehfvwxn")
    }

    static let hosts: [(String, String)] = [
        ("http://bücher.example", "http://xn--bcher-kva.example/x"),
        ("https://münchen.de:8443/base", "https://xn--mnchen-3ya.de:8443/base/x"),
        ("https://例え.テスト", "https://xn--r8jz45g.xn--zckzah/x"),
        ("https://faß.de", "https://xn--fa-hia.de/x"),
        ("http://b%C3%BCcher.example", "http://xn--bcher-kva.example/x"),
        ("http://xn--bcher-kva.example", "http://xn--bcher-kva.example/x"),
        ("http://api.example.com", "http://api.example.com/x"),
    ]

    @Test(arguments: hosts)
    func hostIsSentInItsASCIIForm(_ host: String, _ expected: String) throws {
        let request = try TestEndpoint(host: host, endpoint: "x").makeRequest()
        #expect(request.url.absoluteString == expected)
    }

    @Test func theTransportSeesThePunycodeHost() async {
        let seen = Locked<String?>(nil)
        let transport = ClosureTransport { request in
            seen.withLock { $0 = request.url.host }
            return IncomingResponse(statusCode: 204)
        }
        let result = await TestEndpoint(host: "https://bücher.example", endpoint: "x", transport: transport).request(
            type: EmptyResponse.self)
        #expect(result.failure == nil)
        #expect(seen.withLock { $0 } == "xn--bcher-kva.example")
    }

    /// A percent-encoded host must not decode into another host, nor a name DNS cannot carry pass.
    @Test(arguments: ["http://evil.example%2F.good.example", "http://evil.example%40good.example", "http://ex\u{2024}ample.com"])
    func hostThatCannotBeANameIsRefused(_ host: String) {
        let error = #expect(throws: HTTPClientError.self) { try TestEndpoint(host: host, endpoint: "x").makeRequest() }
        guard case .badURL = error else {
            Issue.record("expected .badURL, got \(String(describing: error))")
            return
        }
    }
}
