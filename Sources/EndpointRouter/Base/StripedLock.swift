/// State guarded by one of a fixed set of process-wide locks, picked by the owning object's
/// address, for the short-lived objects every call makes (its deadline race, its call scope, its
/// body sink, its endpoint name).
///
/// A ``Locked`` is an allocation of its own; these objects hold their state inline instead, which
/// takes four allocations off every call. Two objects may share a lock: each holds it for a few
/// field updates and never calls out while holding it (no other lock, no user code, no release
/// that could run a deinitializer), so sharing costs no more than an occasional short wait.
///
/// Measured (issue 27): a `Locked` per object instead costs every call 4 allocations (35.0 → 39.0)
/// and 831 instructions (70,552 → 71,383); `Benchmarks/instructions` and valgrind's heap summary
/// on its binary, 2,000 and 12,000 calls.
protocol StripeLocked: AnyObject {
    associatedtype State
    /// Touched only inside ``withLock(_:)``.
    var lockedState: State { get set }
}

extension StripeLocked {
    /// Runs `body` on the state under this object's lock.
    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        try LockStripes.lock(for: self).withLock { () throws(Failure) in try body(&lockedState) }
    }
}

/// The locks ``StripeLocked`` objects share.
enum LockStripes {
    private static let locks = (0..<64).map { _ in Locked(()) }

    static func lock(for object: AnyObject) -> Locked<Void> {
        let address = UInt(bitPattern: ObjectIdentifier(object))
        // Objects are at least 16-byte aligned and often allocated next to each other: mixing two
        // ranges of address bits spreads neighbours over different locks.
        return locks[Int((address >> 6 ^ address >> 12) & 63)]
    }
}
