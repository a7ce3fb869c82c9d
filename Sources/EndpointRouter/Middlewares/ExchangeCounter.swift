import Foundation

/// Counts what goes to the network below a ``CallMetricsMiddleware``: the library's last step (after
/// every middleware) reports each attempt and its response to the counters the context carries, so
/// retries and replays made by middlewares further down are seen however they are nested.
final class ExchangeCounter: Sendable {
    struct Tally: Sendable {
        var attempts = 0
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
    }

    private let state = Locked(Tally())

    var tally: Tally { state.withLock { $0 } }

    /// One attempt of `request` is going out.
    func sending(_ request: OutgoingRequest) {
        let size = Self.size(of: request.body)
        state.withLock {
            $0.attempts += 1
            $0.bytesSent += size
        }
    }

    /// An attempt was answered with `response`.
    func received(_ response: IncomingResponse) {
        let size = Self.size(of: response)
        state.withLock { $0.bytesReceived += size }
    }

    /// The bytes of `response`'s body, in memory or in its file.
    static func size(of response: IncomingResponse) -> Int64 {
        response.bodyFile.map(fileSize) ?? Int64(response.body.count)
    }

    /// Reports an attempt of `request` to every counter in `context`, runs it, and reports its response.
    static func counting(
        _ request: OutgoingRequest, _ context: CallContext,
        _ exchange: () async throws(HTTPClientError) -> IncomingResponse
    ) async throws(HTTPClientError) -> IncomingResponse {
        let counters = context.options.exchangeCounters
        guard !counters.isEmpty else { return try await exchange() }
        for counter in counters { counter.sending(request) }
        let response = try await exchange()
        for counter in counters { counter.received(response) }
        return response
    }

    private static func size(of body: OutgoingRequest.Body?) -> Int64 {
        switch body {
        case .data(let data): Int64(data.count)
        case .file(let url): fileSize(url)
        case nil: 0
        }
    }

    private static func fileSize(_ url: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}

extension EndpointOptions {
    /// The counters of the metrics middlewares above, innermost last. Internal: not an endpoint's
    /// setting but the way a middleware reaches the library's last step.
    var exchangeCounters: [ExchangeCounter] {
        get { self[ExchangeCounters.self] }
        set { self[ExchangeCounters.self] = newValue }
    }
}

private enum ExchangeCounters: EndpointOptionKey {
    static let defaultValue: [ExchangeCounter] = []
}
