import Foundation

/// One call of an endpoint, taken from it up front so that sending needs no access to the endpoint
/// value (which need not be `Sendable`): the built request and every policy that applies to it.
struct Call: Sendable {
    var request: OutgoingRequest
    let endpointName: CallContext.Name
    let options: EndpointOptions
    let middlewares: [any HTTPMiddleware]
    let transport: any HTTPTransport
    /// The clock the call's waits go through (see ``TaskOverride/clock``).
    let clock: any CallClock
    /// The credential stores of the task's override, if one was bound.
    let credentials: CredentialScope?
    let timeout: TimeInterval?
    let redirectPolicy: RedirectPolicy
    let acceptableStatusCodes: any StatusCodeSet
    let maxResponseSize: Int?
    let decoder: JSONDecoder
    let keyPath: String?

    init<Client: HTTPClient>(_ client: Client, _ overrides: CallOverrides = CallOverrides()) throws(HTTPClientError) {
        var request = try client.makeRequest()
        // Most calls override no header: no sorting then (about 190 instructions a call).
        if !overrides.headers.isEmpty {
            for (name, value) in overrides.headers.sorted(by: { $0.key < $1.key }) {
                request.headers[name] = value
            }
        }
        self.request = request
        endpointName = EndpointName.forCall(of: client)
        // Read once, where the service's own values are read: the whole call keeps what was in
        // force when it was made. Unwrapped once: each `override?.` copied and destroyed the
        // optional, about 800 instructions a call without an override.
        var options = client.options
        let declared: [any HTTPMiddleware]
        let transport: any HTTPTransport
        if let override = TaskOverride.current {
            override.options?(&options)
            declared = override.middlewares?(client.middlewares) ?? client.middlewares
            transport = override.transport ?? client.transport
            clock = override.clock(for: transport)
            credentials = override.credentials
        } else {
            declared = client.middlewares
            transport = client.transport
            clock = SystemCallClock()
            credentials = nil
        }
        self.options = options
        middlewares = overrides.middlewares.isEmpty ? declared : declared + overrides.middlewares
        self.transport = transport
        timeout = overrides.timeout ?? client.timeout
        redirectPolicy = client.redirectPolicy
        acceptableStatusCodes = client.acceptableStatusCodes
        maxResponseSize = client.maxResponseSize
        decoder = client.decoder
        keyPath = overrides.keyPath
    }

    /// The call for `client`, or why it cannot start: the task is already cancelled, or the
    /// request cannot be built.
    static func starting<Client: HTTPClient>(_ client: Client, _ overrides: CallOverrides) -> Result<Call, HTTPClientError> {
        if Task.isCancelled { return .failure(.cancelled) }
        return Result { () throws(HTTPClientError) in try Call(client, overrides) }
    }

    /// Runs the pipeline under the call's deadline: middlewares, request checks, redirects, one
    /// exchange per hop into sinks of `scope`. Returns at the deadline or on cancellation at once.
    func send(
        into scope: CallScope, uploadProgress: ProgressReporter?, stream: StreamObserver? = nil,
        streamDeadline: StreamDeadline? = nil
    ) async -> Result<IncomingResponse, HTTPClientError> {
        // The deadline is on the call's clock, for the waits and `remainingTime`; the timer that
        // ends a call whatever it is doing counts the same span in real time, so a virtual clock
        // neither ends a call early nor lets it run on for ever.
        var deadline = Deadline.instant(after: timeout, on: clock)
        var timerDeadline = Deadline.instant(after: timeout)
        if let streamDeadline {
            deadline = min(deadline, streamDeadline.onClock)
            timerDeadline = min(timerDeadline, streamDeadline.real)
        }
        var options = options
        // The endpoint's sensitive names join the credential headers before any middleware runs, so
        // the cache and the de-duplication partition by them as the redirect follower strips them.
        if !redirectPolicy.sensitiveHeaders.isEmpty {
            options.credentialHeaders.formUnion(redirectPolicy.sensitiveHeaders.map { $0.lowercased() })
        }
        let context = CallContext(
            name: endpointName, attempt: 1, deadline: deadline, options: options,
            uploadProgress: uploadProgress, streamObserver: stream, clock: clock, credentials: credentials)
        let redirectPolicy = self.redirectPolicy
        let transport = self.transport
        let acceptableStatusCodes = self.acceptableStatusCodes
        let terminal: HTTPMiddleware.Next = { request, context throws(HTTPClientError) in
            try RequestChecks.check(request)
            var context = context
            context.checkedRequest = CheckedRequest(request)
            var policy = redirectPolicy
            policy.sensitiveHeaders.formUnion(context.options.credentialHeaders)
            let follower = RedirectFollower(policy: policy)
            return try await ExchangeCounter.counting(request, context) { () throws(HTTPClientError) in
                try await follower.follow(request) { hop throws(HTTPClientError) in
                    let exchange: HTTPMiddleware.Next = { hop, context throws(HTTPClientError) in
                        let sink = try scope.makeSink(answering: hop.method)
                        if case .stream(let stream) = sink {
                            return try await stream.exchange(
                                hop, on: transport, context: context, until: streamDeadline,
                                acceptable: acceptableStatusCodes, scope: scope)
                        }
                        let head = try await transport.send(hop, context: context, sink: sink.sink)
                        return try sink.finish(head)
                    }
                    guard let perExchange = context.exchangeMiddleware else { return try await exchange(hop, context) }
                    return try await perExchange.intercept(hop, context: context, next: exchange)
                }
            }
        }
        let request = self.request
        let middlewares = self.middlewares
        // Without middlewares, on a transport the deadline can cut, nothing in the pipeline can
        // ignore cancellation: the call runs in the caller's task (see `Deadline.runInCallerTask`).
        if middlewares.isEmpty, stream == nil, CuttableTypes.contains(transport) {
            let cut = DeadlineCut()
            var context = context
            context.deadlineCut = cut
            return await Deadline.runInCallerTask(until: timerDeadline, cut: cut) { () throws(HTTPClientError) in
                try await terminal(request, context)
            }
        }
        // On a clock of its own (a test's), the call also ends when that clock passes the deadline.
        // Not once a stream's head is in: that head came in time, and only the call's task has not
        // run since — on an automatic virtual clock the transport's first pause passes at once.
        let clock = self.clock
        let alarm: ((@escaping @Sendable () -> Void) -> (@Sendable () -> Void)?)? =
            clock is SystemCallClock
            ? nil
            : { [deadline] action in
                clock.alarm(at: deadline) {
                    if stream != nil, scope.hasStreamHead(acceptable: acceptableStatusCodes) { return }
                    action()
                }
            }
        return await Deadline.run(until: timerDeadline, alarm: alarm) { () throws(HTTPClientError) in
            try await MiddlewareChain.run(middlewares[...], then: terminal, request, context)
        }
    }

    /// Sends and decodes into memory.
    func response<T: Decodable & SendableMetatype>(_ type: T.Type, uploadProgress: ProgressReporter?) async
        -> Result<EndpointResponse<T>, HTTPClientError>
    {
        let scope = CallScope(.memory(limit: maxResponseSize))
        // No later than `send`'s own: the wait for the progress closure is within the call's deadline.
        let deadline = Deadline.instant(after: timeout)
        let received = await send(into: scope, uploadProgress: uploadProgress)
        scope.close()
        // The closure is over before the call returns (or the deadline passed), the total delivered
        // when the exchange completed (see `ProgressReporter`).
        await uploadProgress?.finish(deliveringLast: (try? received.get()) != nil, by: deadline)
        if Task.isCancelled { return .failure(.cancelled) }
        return received.flatMap { response in
            ResponseDecoding.decode(
                type, from: response, request: request,
                acceptableStatusCodes: acceptableStatusCodes, decoder: decoder, keyPath: keyPath)
        }
    }
}

/// What one call changes of its endpoint: the arguments of `request(type:at:timeout:headers:middlewares:)`
/// and its siblings.
struct CallOverrides: Sendable {
    var keyPath: String? = nil
    var timeout: TimeInterval? = nil
    var headers: [String: String] = [:]
    var middlewares: [any HTTPMiddleware] = []
}
