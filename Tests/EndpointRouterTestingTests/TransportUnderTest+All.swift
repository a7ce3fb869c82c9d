extension TransportUnderTest {
    /// Every transport this package ships. (A package that links the conformance tests, such as
    /// Transports/AsyncHTTPClient, has its own copy of this file listing its transports instead.)
    static let all: [TransportUnderTest] = [urlSession, stub, replay, recording]
}
