import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

/// Cancels and deadlines racing corelibs' completion-handler callbacks on the default transport:
/// the redirect decision (`willPerformHTTPRedirection`), the authentication challenge and a file
/// upload that is redirected. Before the redirect decision was made exclusive with the task's
/// cancel, the redirect loop below killed the process (`HTTPURLProtocol.swift:705: Received callback
/// for HTTP redirection, but we're not waiting for it`) in 3 runs of 3 at 2,000 calls.
///
/// Sizes come from the environment, so CI's full-size step runs more: `REDIRECT_RACE_CALLS` (the
/// redirect loop, cut by cancels or by deadlines: 100,000 each in CI) and `CALLBACK_RACE_CALLS`
/// (the mixed cuts of the loop, the challenges and the uploads: 5,000 each in CI).
extension Serialized {
    // Serialized because 32 calls in flight saturate corelibs' process-wide work queue, which every
    // URLSession in the process shares: timing tests running beside it would miss their bounds.
    @Suite struct CompletionRaceTests {
        static func size(_ name: String, default value: Int) -> Int {
            Int(ProcessInfo.processInfo.environment[name] ?? "") ?? value
        }

        /// How one call of a race is cut short.
        enum Cut: String, CaseIterable, Sendable {
            /// Cancelled 0–3 ms after it starts.
            case cancel
            /// A deadline of 1–20 ms.
            case deadline
            /// A third of each: cancelled 0–20 ms after starting, a deadline of 1–50 ms, or left
            /// alone, so that the loop's own error also races the others.
            case mixed
        }

        /// Starts `count` calls, 32 in flight, each cut as `cut` says; every call must end exactly
        /// once, within 30 s of its batch starting, with an outcome in `allowed`. Returns the count
        /// of each outcome (`caseName`, or `"success"`).
        static func race(
            _ count: Int, cut: Cut, allowed: Set<String>, transport: any HTTPTransport,
            endpoint: @escaping @Sendable (_ id: Int, _ timeout: TimeInterval) -> TestEndpoint
        ) async throws -> [String: Int] {
            let outcomes = Locked<[Int: String]>([:])
            let deliveredTwice = Locked(0)
            var late = 0
            for batchStart in stride(from: 0, to: count, by: 32) {
                let ids = batchStart..<min(count, batchStart + 32)
                for id in ids {
                    let choice = cut == .mixed ? [Cut.cancel, .deadline, .mixed][id % 3] : cut
                    let timeout: TimeInterval =
                        switch choice {
                        case .deadline: cut == .mixed ? .random(in: 0.001...0.050) : .random(in: 0.001...0.020)
                        case .cancel, .mixed: 10
                        }
                    let handle = endpoint(id, timeout).request(type: Data.self) { result in
                        outcomes.withLock {
                            if $0[id] != nil { deliveredTwice.withLock { $0 += 1 } }
                            $0[id] = result.failure.map { $0.caseName } ?? "success"
                        }
                    }
                    if choice == .cancel {
                        let microseconds = Int.random(in: 0...(cut == .mixed ? 20_000 : 3_000))
                        DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(microseconds)) { handle.cancel() }
                    }
                }
                let limit = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < limit, outcomes.withLock({ state in ids.contains { state[$0] == nil } }) {
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
                late += outcomes.withLock { state in ids.filter { state[$0] == nil }.count }
            }
            // A second delivery arriving after its batch ended would still be counted here.
            try await Task.sleep(nanoseconds: 50_000_000)
            var classes: [String: Int] = [:]
            for value in outcomes.withLock({ $0.values }) { classes[value, default: 0] += 1 }
            #expect(late == 0, "\(late) of \(count) calls never ended")
            #expect(deliveredTwice.withLock { $0 } == 0, "calls answered twice")
            #expect(Set(classes.keys).isSubset(of: allowed), "unexpected outcomes: \(classes)")
            return classes
        }

        @Test(arguments: LibraryTransport.allCases, Cut.allCases)
        func cutsRacingARedirectLoopEndEveryCallOnce(_ engine: LibraryTransport, _ cut: Cut)
            async throws
        {
            let count = cut == .mixed ? Self.size("CALLBACK_RACE_CALLS", default: 500) : Self.size("REDIRECT_RACE_CALLS", default: 1_000)
            let server = try TestServer { request in .redirect(status: 302, location: request.target) }
            defer { server.stop() }
            let transport = try engine.make()
            let tooManyRedirects = "transport(\(URLError.httpTooManyRedirects.rawValue))"
            let allowed: Set<String> =
                switch cut {
                // A call cut late enough meets the loop's limit first: 10 hops on loopback take ~10 ms.
                case .cancel: ["cancelled", tooManyRedirects]
                case .deadline: ["timedOut", tooManyRedirects]
                case .mixed: ["cancelled", "timedOut", tooManyRedirects]
                }
            let started = ContinuousClock.now
            let classes = try await Self.race(count, cut: cut, allowed: allowed, transport: transport) { id, timeout in
                TestEndpoint(host: server.baseURL, endpoint: "loop/\(id)", timeout: timeout, transport: transport)
            }
            let took = ContinuousClock.now - started
            print("redirect race (\(engine), \(cut.rawValue), \(count) calls, 32 in flight): \(classes) in \(took)")
            if cut == .mixed {
                // The calls left alone must reach the loop's limit, or the race proved nothing about it.
                #expect(classes[tooManyRedirects, default: 0] > 0, "\(classes)")
            }
        }

        /// A `401` with a Basic challenge goes through corelibs' authentication callback, which the
        /// transport answers with `.cancelAuthenticationChallenge` while the caller may be cancelling.
        @Test(arguments: LibraryTransport.allCases, [Cut.cancel, .deadline, .mixed])
        func cutsRacingAnAuthenticationChallengeEndEveryCallOnce(_ engine: LibraryTransport, _ cut: Cut)
            async throws
        {
            let count = Self.size("CALLBACK_RACE_CALLS", default: 500)
            let server = try TestServer { _ in
                .status(401, headers: [("WWW-Authenticate", "Basic realm=\"race\"")], body: "sign in")
            }
            defer { server.stop() }
            let transport = try engine.make()
            let allowed: Set<String> =
                switch cut {
                case .cancel: ["cancelled", "unacceptableStatusCode(401)"]
                case .deadline: ["timedOut", "unacceptableStatusCode(401)"]
                case .mixed: ["cancelled", "timedOut", "unacceptableStatusCode(401)"]
                }
            let classes = try await Self.race(count, cut: cut, allowed: allowed, transport: transport) { id, timeout in
                TestEndpoint(host: server.baseURL, endpoint: "private/\(id)", timeout: timeout, transport: transport)
            }
            print("challenge race (\(engine), \(cut.rawValue), \(count) calls): \(classes)")
            if cut == .mixed {
                #expect(classes["unacceptableStatusCode(401)", default: 0] > 0, "\(classes)")
            }
        }

        /// A file upload to a 307 self-loop: every hop sends the file again (`uploadTask(fromFile:)`),
        /// so cancels land while corelibs reads the file, waits for the head and decides the redirect.
        @Test(arguments: LibraryTransport.allCases, [Cut.cancel, .deadline, .mixed])
        func cutsRacingARedirectedUploadEndEveryCallOnce(_ engine: LibraryTransport, _ cut: Cut)
            async throws
        {
            let count = Self.size("CALLBACK_RACE_CALLS", default: 500)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("er-upload-race-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("upload.bin")
            try Data(repeating: 0x5A, count: 64 * 1024).write(to: file)
            let server = try TestServer { request in .redirect(status: 307, location: request.target) }
            defer { server.stop() }
            let transport = try engine.make()
            let tooManyRedirects = "transport(\(URLError.httpTooManyRedirects.rawValue))"
            let allowed: Set<String> =
                switch cut {
                // A call cut late enough meets the loop's limit first: 10 hops on loopback take ~10 ms.
                case .cancel: ["cancelled", tooManyRedirects]
                case .deadline: ["timedOut", tooManyRedirects]
                case .mixed: ["cancelled", "timedOut", tooManyRedirects]
                }
            let classes = try await Self.race(count, cut: cut, allowed: allowed, transport: transport) { id, timeout in
                TestEndpoint(
                    host: server.baseURL, endpoint: "upload/\(id)", method: .post,
                    body: .file(file, contentType: "application/octet-stream"), timeout: timeout, transport: transport)
            }
            print("upload race (\(engine), \(cut.rawValue), \(count) calls): \(classes)")
            if cut == .mixed {
                #expect(classes[tooManyRedirects, default: 0] > 0, "\(classes)")
            }
        }
    }
}
