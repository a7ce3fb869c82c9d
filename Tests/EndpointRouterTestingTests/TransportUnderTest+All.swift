extension TransportUnderTest {
    /// Every transport this package ships. (A package that links the conformance tests, such as
    /// Transports/AsyncHTTPClient, has its own copy of this file listing its transports instead.)
    /// On Linux the libcurl transport comes first: the chaos run takes the first live one.
    #if os(Linux)
        static let all: [TransportUnderTest] = [curl, urlSession, stub, replay, recording]
    #else
        static let all: [TransportUnderTest] = [urlSession, stub, replay, recording]
    #endif
}
