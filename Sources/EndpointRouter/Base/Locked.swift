import Foundation

/// A value behind a lock, so classes shared across threads can keep mutable state and stay `Sendable`.
///
/// (`Synchronization.Mutex` would do, but needs macOS 15 / iOS 18; this works everywhere.)
/// Package-visible so `EndpointRouterTesting` shares it rather than keeping a copy.
package final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only touched inside `withLock`, under `lock`.
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) { self.value = value }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
