// Runs a streaming block offline: every streaming endpoint answers from a stub with a short SSE body,
// NDJSON log lines or plain lines, inside withTransport.
import EndpointRouterTesting

let stub = StubTransport()
    .on(.post, "/v1/completions", respond: .text("data: Hel\n\ndata: lo\n\nevent: done\ndata: [DONE]\n\n", headers: ["Content-Type": "text/event-stream"]))
    .on(.get, "/apps/:app/tail", respond: .text("{\"level\":\"info\",\"message\":\"started\"}\n{\"level\":\"warn\",\"message\":\"slow\"}\n", headers: ["Content-Type": "application/x-ndjson"]))
    .on(.get, "/firehose", respond: .text("one\r\ntwo\n"))
    .on(.get, "/live", respond: .text("data: tick\n\n", headers: ["Content-Type": "text/event-stream"]))
    .on(.get, "/live.ts", respond: .data(Data(repeating: 0x47, count: 188 * 4)))
try await withTransport(stub) {
    // @snippet
}
