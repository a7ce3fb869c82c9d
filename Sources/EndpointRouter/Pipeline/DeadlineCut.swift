/// An exchange the library can end early, with the error to end it with: what a transport that
/// conforms to ``CuttableTransport`` registers with a call's ``DeadlineCut`` while it waits.
protocol CuttableExchange: AnyObject, Sendable {
    /// Ends the exchange with `error` soon, from any thread: the transfer is removed and the
    /// exchange's caller resumed with `error`. Does nothing once the exchange has its outcome.
    func cut(_ error: HTTPClientError)
}

/// A transport whose every wait is an exchange that registers with the call's ``DeadlineCut``
/// (`context.deadlineCut`) and that ends at once on its task's cancellation, so that a call
/// without middlewares may run in its caller's own task (``Deadline/runInCallerTask(until:cut:_:)``)
/// and still be answered at its deadline.
protocol CuttableTransport: HTTPTransport {}

/// Which transport types are ``CuttableTransport``s, asked of the runtime once per type: the cast
/// `transport is any CuttableTransport` cost about 1,300 instructions on every call (callgrind).
/// At most ``limit`` answers are kept: generic wrappers can make new transport types at run time
/// without end, and a forgotten answer is only asked again.
enum CuttableTypes {
    static let limit = 256
    private static let known = Locked<[ObjectIdentifier: Bool]>([:])

    static func contains(_ transport: any HTTPTransport) -> Bool {
        let type = ObjectIdentifier(Swift.type(of: transport))
        if let answer = known.withLock({ $0[type] }) { return answer }
        let answer = transport is any CuttableTransport
        known.withLock { answers in
            if answers.count >= limit { answers.removeAll(keepingCapacity: true) }
            answers[type] = answer
        }
        return answer
    }

    /// How many answers are kept now.
    static var count: Int { known.withLock { $0.count } }
}

/// The deadline of one call run in its caller's own task: the timer fires ``deadlinePassed()``,
/// which ends the exchange in flight; an exchange that starts after it fails with `.timedOut`.
/// The rules are ``DeadlineCutState``'s; this class holds it under a lock and does what it says.
final class DeadlineCut: StripeLocked, @unchecked Sendable {
    // Safe (`@unchecked Sendable`): only touched under the object's stripe lock (`withLock`).
    var lockedState = DeadlineCutState<any CuttableExchange>()

    /// `exchange` waits on the network from now on. Throws `.timedOut` if the deadline has passed.
    func exchangeStarted(_ exchange: any CuttableExchange) throws(HTTPClientError) {
        guard withLock({ $0.exchangeStarted(exchange) }) else { throw .timedOut }
    }

    /// The exchange in flight has its outcome.
    func exchangeEnded() { withLock { $0.exchangeEnded() } }

    /// The deadline passed: the exchange in flight, if any, ends with `.timedOut`.
    func deadlinePassed() { withLock { $0.deadlinePassed() }?.cut(.timedOut) }
}
