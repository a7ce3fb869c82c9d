#if os(Linux)
    import Testing

    @testable import EndpointRouter

    /// The loop's memory of which configured files were readable: the file system is asked at most
    /// once an interval for a file that was, and every time for one that was not.
    @Suite struct CurlReadableFilesTests {
        /// A loop's memory and a file system that answers from `readable` and records the questions.
        final class Loop {
            var files = CurlReadableFiles()
            var readable: Set<String> = []
            var asked: [String] = []

            func isReadable(_ path: String, at now: UInt64) -> Bool {
                files.isReadable(path, now: now) { path in
                    asked.append(path)
                    return readable.contains(path)
                }
            }
        }

        @Test func aReadableFileIsAskedAboutOnceAnInterval() {
            let loop = Loop()
            loop.readable = ["/ca.pem"]
            let interval = CurlReadableFiles.recheckInterval
            #expect(loop.isReadable("/ca.pem", at: 10))
            #expect(loop.isReadable("/ca.pem", at: 11))
            #expect(loop.isReadable("/ca.pem", at: 10 + interval - 1))
            #expect(loop.asked == ["/ca.pem"])
            // The interval over, the file system is asked again, and its no is the answer.
            loop.readable = []
            #expect(!loop.isReadable("/ca.pem", at: 10 + interval))
            #expect(loop.asked.count == 2)
        }

        @Test func anUnreadableFileIsAskedAboutEveryTimeAndSeenOnceInPlace() {
            let loop = Loop()
            #expect(!loop.isReadable("/key.pem", at: 10))
            #expect(!loop.isReadable("/key.pem", at: 11))
            loop.readable = ["/key.pem"]
            #expect(loop.isReadable("/key.pem", at: 12))
            #expect(loop.asked == ["/key.pem", "/key.pem", "/key.pem"])
        }

        @Test func eachFileHasItsOwnAnswer() {
            let loop = Loop()
            loop.readable = ["/cert.pem"]
            #expect(loop.isReadable("/cert.pem", at: 10))
            #expect(!loop.isReadable("/key.pem", at: 11))
            #expect(loop.isReadable("/cert.pem", at: 12))
            #expect(loop.asked == ["/cert.pem", "/key.pem"])
        }

        /// A clock reading earlier than the last yes never stretches the interval: the file system is asked.
        @Test func anEarlierClockAsksAgain() {
            let loop = Loop()
            loop.readable = ["/ca.pem"]
            #expect(loop.isReadable("/ca.pem", at: 1_000))
            #expect(loop.isReadable("/ca.pem", at: 999))
            #expect(loop.asked.count == 2)
        }
    }
#endif
