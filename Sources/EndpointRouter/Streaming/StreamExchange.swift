import Foundation

extension StreamBodySink {
    /// Bytes of a non-acceptable response's body kept for the error's preview: enough for any API's
    /// error document, while an endless error body costs no more.
    static let previewLimit = 64 * 1024

    /// One streaming exchange, as the library's last step before the transport runs it: starts the
    /// transport in a task of its own and returns as soon as the head is in. An acceptable status is
    /// returned with an empty body and offered to `scope` as the stream to deliver; any other (an
    /// error, a redirect) is read up to ``previewLimit`` bytes and closed, so retries, refreshes and
    /// redirects above see an ordinary response.
    ///
    /// Not inlined: its frame would join the frame of every call's last step, streaming or not, and
    /// a call's task would then outgrow its first block of task memory (+1 allocation per call,
    /// `valgrind --tool=memcheck --xtree-memory=full` on a stub call: 35 → 36).
    @inline(never)
    func exchange(
        _ request: OutgoingRequest, on transport: any HTTPTransport, context: CallContext, until streamDeadline: StreamDeadline?,
        acceptable: any StatusCodeSet, scope: CallScope
    ) async throws(HTTPClientError) -> IncomingResponse {
        // The transport's own backstops follow the stream's lifetime, not the head's deadline.
        var transportContext = context
        // On the call's clock, as the call's deadline: a stub's pause ends there in virtual time.
        transportContext.deadline = streamDeadline?.onClock ?? Deadline.instant(after: Deadline.maximumSeconds, on: context.clock)
        start(request, on: transport, context: transportContext)
        let head = try await head()
        guard acceptable.contains(head.statusCode) else {
            return IncomingResponse(head: head, body: await collect(upTo: Self.previewLimit))
        }
        try scope.offer(self)
        var response = IncomingResponse(head: head)
        response.isStreaming = true
        return response
    }

    /// A stream that already ended with `body`: what a middleware answered without the network.
    static func finished(with response: IncomingResponse) -> StreamBodySink {
        let stream = StreamBodySink(capacity: max(1, response.body.count))
        try? stream.receive(response.head)
        response.body.withUnsafeBytes { bytes in try? stream.write(bytes) }
        stream.exchangeEnded(.success(response.head))
        return stream
    }
}

extension Call {
    /// The head phase of a streaming call: every middleware, request check, redirect and retry up to
    /// an acceptable head, within the endpoint's `timeout` (and the stream's total one). Returns the
    /// stream to read the body from, already watched for idleness and its total deadline.
    func openStream(limits: StreamLimits, deadline streamDeadline: StreamDeadline?, observer: StreamObserver) async
        -> Result<StreamBodySink, HTTPClientError>
    {
        if Task.isCancelled { return .failure(.cancelled) }
        // On the system clock no watch: the sink then keeps real time alone, as it always did.
        let watch = ClockWatch(clock: clock, limits: limits, deadline: streamDeadline)
        let scope = CallScope(.stream(capacity: limits.bufferSize, watch: watch))
        let received = await send(into: scope, uploadProgress: nil, stream: observer, streamDeadline: streamDeadline)
        let offered = scope.close()
        let outcome: Result<StreamBodySink, HTTPClientError> =
            if Task.isCancelled {
                .failure(.cancelled)
            } else {
                received.flatMap { response in
                    ResponseDecoding.decode(
                        Data.self, from: response, request: request, acceptableStatusCodes: acceptableStatusCodes, decoder: decoder
                    )
                    .map { _ in offered ?? StreamBodySink.finished(with: response) }
                }
            }
        switch outcome {
        case .success(let stream):
            stream.watch(idle: limits.idleDuration, deadline: streamDeadline?.real)
        case .failure(let error):
            offered?.close(.cancelled)
            observer.end(bytes: 0, elements: 0, error: error)
        }
        return outcome
    }
}
