/// The exchanges in flight that ``DeduplicationMiddleware`` lets identical requests share.
///
/// Hold one for as long as requests should be shared — the process-wide ``shared`` one, or your
/// own in a `static let` — because sharing happens only between requests that meet in the same
/// object.
///
/// ```swift
/// enum CatalogAPI: HTTPClient {
///     case products
///     static let inFlight = InFlightRequests()
///     var host: String { "https://shop.example.com" }
///     var endpoint: String { "products" }
///     var middlewares: [any HTTPMiddleware] { [DeduplicationMiddleware(sharing: Self.inFlight)] }
/// }
/// ```
///
/// How an exchange is shared: the first caller sends it through its own pipeline (the rest of its
/// middlewares, its transport, its body limit) and the callers who arrive while it is in flight
/// wait for its answer. A waiting caller that is cancelled, or whose deadline passes, stops waiting
/// at once; the others keep waiting. If the first caller leaves, its call — and so its exchange —
/// ends, because the call owns the connection and the body's memory; the exchange is then sent
/// again through the pipeline of a caller still waiting (one more request reaches the server), so
/// nobody else fails because one caller left. When every caller has gone, nothing is sent any more.
/// A download (whose body is in a file the first caller's call owns) is not shared: the other
/// callers then send their own.
public final class InFlightRequests: Sendable {
    /// The exchanges shared by every ``DeduplicationMiddleware`` created without an object of its own.
    public static let shared = InFlightRequests()

    /// What a joining caller is to do.
    enum Role: Sendable {
        /// Send the exchange through your pipeline, then hand the result to `Flight.finish`.
        case send(Flight)
        /// The shared exchange's result.
        case shared(Result<IncomingResponse, HTTPClientError>)
        /// The response cannot be shared (its body is in another call's file): send your own.
        case sendYourself
    }

    /// Method, URL, the headers that are not credentials, and the credential partition: requests
    /// join only with the same credentials, and no credential value is held in the key.
    private struct Key: Hashable {
        let method: String
        let url: String
        let headers: [HeaderFields.Field]
        let partition: String

        init(_ request: OutgoingRequest, credentialHeaders: Set<String>, partition: CredentialPartition) {
            method = request.method.rawValue
            url = request.url.absoluteString
            headers = request.headers.fields
                .filter { !SensitiveHeaders.contains($0.name, extra: credentialHeaders) }
                .map { HeaderFields.Field(name: $0.name.lowercased(), value: $0.value) }
            self.partition = partition.key(for: request, extra: credentialHeaders)
        }
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    private let partition = CredentialPartition()

    /// Creates an empty set of exchanges.
    public init() {}

    /// How many distinct exchanges are in flight now.
    public var count: Int {
        state.withLock { $0.flights.count }
    }

    /// How many callers are waiting for an exchange another caller is sending.
    var waitingCount: Int {
        let flights = state.withLock { Array($0.flights.values) }
        return flights.reduce(0) { $0 + $1.waitingCount }
    }

    /// The caller's role for `request`: the sender of a new exchange, or a waiter for the identical
    /// one in flight with the same credentials (returning `.shared(.failure(.cancelled))` at once when
    /// its task is cancelled). `credentialHeaders` names headers that count as credentials besides
    /// ``SensitiveHeaders/credentials``.
    func join(_ request: OutgoingRequest, credentialHeaders: Set<String>) async -> Role {
        let key = Key(request, credentialHeaders: Set(credentialHeaders.map { $0.lowercased() }), partition: partition)
        let (flight, id, isNew) = state.withLock { state -> (Flight, UInt64, Bool) in
            state.nextID += 1
            if let flight = state.flights[key] {
                return (flight, state.nextID, false)
            }
            let flight = Flight { [weak self] flight in self?.remove(flight, for: key) }
            state.flights[key] = flight
            return (flight, state.nextID, true)
        }
        if isNew { return .send(flight) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                flight.wait(id, continuation)
                if Task.isCancelled { flight.leave(id) }
            }
        } onCancel: {
            flight.leave(id)
        }
    }

    private func remove(_ flight: Flight, for key: Key) {
        state.withLock { state in
            if state.flights[key] === flight { state.flights[key] = nil }
        }
    }
}

/// One shared exchange and the callers waiting for it.
final class Flight: Sendable {
    private struct State {
        var waiters: [UInt64: CheckedContinuation<InFlightRequests.Role, Never>] = [:]
        var closed = false
    }

    private let state = Locked(State())
    private let onClose: @Sendable (Flight) -> Void

    init(onClose: @escaping @Sendable (Flight) -> Void) {
        self.onClose = onClose
    }

    var waitingCount: Int {
        state.withLock { $0.waiters.count }
    }

    func wait(_ id: UInt64, _ continuation: CheckedContinuation<InFlightRequests.Role, Never>) {
        let joined = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.waiters[id] = continuation
            return true
        }
        // Answered between the look-up and now: go alone rather than miss the answer.
        if !joined { continuation.resume(returning: .sendYourself) }
    }

    /// Ends one waiter's wait with `.cancelled`.
    func leave(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume(returning: .shared(.failure(.cancelled)))
    }

    /// Hands the sender's result to every waiter — unless it failed because the sender left
    /// (`senderLeft`), which says nothing about the server: then the longest-waiting caller
    /// becomes the sender. With nobody waiting, the exchange is over.
    func finish(_ result: Result<IncomingResponse, HTTPClientError>, senderLeft: Bool) {
        let handOver: Bool = if case .failure = result { senderLeft } else { false }
        typealias Waiter = CheckedContinuation<InFlightRequests.Role, Never>
        let (next, waiters) = state.withLock { state -> (Waiter?, [UInt64: Waiter]) in
            if handOver, let first = state.waiters.keys.min(), let continuation = state.waiters.removeValue(forKey: first) {
                return (continuation, [:])
            }
            state.closed = true
            defer { state.waiters = [:] }
            return (nil, state.waiters)
        }
        if let next {
            next.resume(returning: .send(self))
            return
        }
        onClose(self)
        // A body in a file belongs to the sender's call, which deletes it when it ends.
        let outcome: InFlightRequests.Role = (try? result.get())?.bodyFile != nil ? .sendYourself : .shared(result)
        for continuation in waiters.values { continuation.resume(returning: outcome) }
    }
}
