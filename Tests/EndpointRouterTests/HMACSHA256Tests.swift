import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

/// The library's SHA-256 and HMAC-SHA256 against published vectors, and the credential partition
/// built on them.
@Suite("HMAC-SHA256 and the credential partition")
struct HMACSHA256Tests {
    static func hex(_ text: String) -> String { HMACSHA256.hex(HMACSHA256.hash(Array(text.utf8))) }

    /// FIPS 180-4 examples (NIST CSRC): one block, empty, two blocks.
    @Test func sha256MatchesTheNISTExamples() {
        #expect(Self.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// Every length around the padding boundaries (55, 56, 63, 64 bytes…) agrees with the test
    /// server's independent, streaming implementation.
    @Test func sha256AgreesWithTheTestServersAtEveryLengthUpTo200() {
        for length in 0...200 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            #expect(HMACSHA256.hex(HMACSHA256.hash(bytes)) == SHA256Digest.hex(of: Data(bytes)), "length \(length)")
        }
    }

    /// RFC 4231 test cases 1, 2, 3, 6 and 7 (6 and 7 use a key longer than a block).
    @Test(arguments: [
        (
            [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func hmacMatchesRFC4231(key: [UInt8], message: [UInt8], expected: String) {
        #expect(HMACSHA256.hex(HMACSHA256.authenticationCode(key: key, message: message)) == expected)
    }

    static func request(_ headers: [String: String]) throws -> OutgoingRequest {
        var request = OutgoingRequest(method: .get, url: try #require(URL(string: "https://api.example.com/me")))
        for (name, value) in headers { request.headers[name] = value }
        return request
    }

    @Test func thePartitionTellsCredentialsApartWithoutHoldingThem() throws {
        let partition = CredentialPartition()
        let anonymous = try Self.request(["Accept": "application/json"])
        let alice = try Self.request(["X-API-Key": "alice-secret", "Accept": "application/json"])
        let aliceAgain = try Self.request(["x-api-key": "alice-secret", "Accept": "text/plain"])
        let bob = try Self.request(["X-API-Key": "bob-secret"])
        let extra: Set<String> = ["x-api-key"]
        #expect(partition.key(for: anonymous, extra: extra) == "")
        #expect(partition.key(for: alice, extra: []) == "", "an undeclared header is not a credential")
        let aliceKey = partition.key(for: alice, extra: extra)
        #expect(aliceKey.count == 64)
        #expect(!aliceKey.contains("alice"))
        #expect(aliceKey == partition.key(for: aliceAgain, extra: ["X-Api-Key"]), "names in any casing; other headers do not count")
        #expect(aliceKey != partition.key(for: bob, extra: extra))
        #expect(aliceKey != CredentialPartition().key(for: alice, extra: extra), "another instance, another secret")
        for name in ["Authorization", "Proxy-Authorization", "Cookie"] {
            #expect(partition.key(for: try Self.request([name: "v"]), extra: []) != "", "\(name)")
        }
    }
}
