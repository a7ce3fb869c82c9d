// Server-Sent Events through the library's stream path — stream sink, stream reader and its
// reconnection bookkeeping, SSE framing — from a transport that answers at once from memory.
//
//   streams N   N streams of 12 events, each written in 4 pieces: the cost of a short stream
//   events N    one stream of N events in pieces of 10, written before the loop reads any: the cost
//               of an event while the transport is ahead of the reader (the queue holds N / 10 pieces)
//
// Benchmarks/instructions runs each under callgrind for two N and prints the difference per stream
// and per event, so start-up cost cancels out (issue 27's before/after of the state machines).
import Dispatch
import EndpointRouter
import Foundation

let mode = CommandLine.arguments.dropFirst().first ?? "streams"
let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 2000

/// `n` events from `first` on, as a chat-completion stream sends them.
func piece(_ first: Int, _ n: Int) -> Data {
    var text = ""
    for index in first..<(first + n) {
        text += "id: \(index)\nevent: token\ndata: {\"token\":\"the model streams each token \(index)\"}\n\n"
    }
    return Data(text.utf8)
}

let shortStream = (0..<4).map { piece($0 * 3, 3) }

/// Writes the whole body at once, never waiting for the reader.
struct InstantStreamTransport: HTTPTransport {
    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError) -> ResponseHead {
        let head = ResponseHead(statusCode: 200, headers: ["Content-Type": "text/event-stream"], url: request.url)
        try sink.receive(head)
        if mode == "streams" {
            for piece in shortStream { try sink.write(piece) }
        } else {
            var first = 0
            while first < count {
                try sink.write(piece(first, 10))
                first += 10
            }
        }
        return head
    }
}

struct Events: HTTPClient, Sendable {
    var host: String { "https://api.example.com" }
    var endpoint: String { "events" }
    var transport: any HTTPTransport { InstantStreamTransport() }
}

final class Box: @unchecked Sendable { var events = 0 }
let box = Box()
let done = DispatchSemaphore(value: 0)
// The buffer holds the longest run's whole body: the transport never waits.
let limits = StreamLimits(bufferSize: 64 * 1024 * 1024)
// Not top-level await: valgrind cannot run dispatch's main-thread loop.
Task.detached {
    for _ in 0..<(mode == "streams" ? count : 1) {
        do {
            for try await event in Events().events(limits: limits) where !event.data.isEmpty { box.events += 1 }
        } catch {
            print("failed: \(error)")
        }
    }
    done.signal()
}
done.wait()
print("events \(box.events)")
