// `request(type:)` end to end — request building, middlewares (none), checks, deadline, call scope,
// sink, validation, decoding — on a transport that answers at once from memory, N times in a row.
// Benchmarks/instructions runs it under callgrind for two N and prints the difference per call, so
// start-up cost cancels out.
import Dispatch
import EndpointRouter
import Foundation

/// Answers every request at once from memory: the call's own cost, no I/O.
struct InstantTransport: HTTPTransport {
    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError) -> ResponseHead {
        let head = ResponseHead(statusCode: 200, headers: ["Content-Type": "application/json"], url: request.url)
        try sink.receive(head)
        try sink.write(Data(#"{"id":1}"#.utf8))
        return head
    }
}
struct Item: Decodable, Sendable { var id: Int }
struct Bench: HTTPClient, Sendable {
    var host: String { "https://api.example.com" }
    var endpoint: String { "items/1" }
    var transport: any HTTPTransport { InstantTransport() }
}
final class Box: @unchecked Sendable { var ok = 0 }
let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20000
let box = Box()
let done = DispatchSemaphore(value: 0)
// Not top-level await: valgrind cannot run dispatch's main-thread loop.
Task.detached {
    for _ in 0..<count {
        if case .success = await Bench().request(type: Item.self) { box.ok += 1 }
    }
    done.signal()
}
done.wait()
print("ok \(box.ok) of \(count)")
