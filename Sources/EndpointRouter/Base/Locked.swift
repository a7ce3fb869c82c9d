#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value behind a lock, so classes shared across threads can keep mutable state and stay `Sendable`.
///
/// One allocation holds both the value and the lock. `NSLock` would cost four on Linux (the object,
/// its mutex and, for timed waits nobody here makes, a second mutex and a condition), and a call
/// takes several of these: that was a tenth of the library's allocations per call.
/// (`Synchronization.Mutex` would do it without any, but needs macOS 15 / iOS 18.)
///
/// A value type sharing one storage: copies of a `Locked` are the same lock and the same value.
/// Package-visible so `EndpointRouterTesting` shares it rather than keeping a copy.
package struct Locked<Value>: @unchecked Sendable {
    // Safe: the value is only touched inside `withLock`, under the lock, and the storage is shared.
    private let storage: LockedStorage<Value>

    package init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withLock(body)
    }
}

extension Locked where Value == Void {
    /// Runs `body` under the lock, for a lock that guards state kept elsewhere.
    ///
    /// No `inout` access to the (empty) value: ThreadSanitizer records an access to a value of
    /// size zero at the object's own address, where it then sees unrelated reads of the object.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withLockOnly(body)
    }
}

#if canImport(Darwin)
    private typealias LockPrimitive = os_unfair_lock
#else
    private typealias LockPrimitive = pthread_mutex_t
#endif

/// The value as the buffer's header and the lock as its one element: the element's address is
/// stable for the buffer's life, which a lock primitive needs (a class's stored property has no
/// such guarantee).
private final class LockedStorage<Value>: ManagedBuffer<Value, LockPrimitive> {
    static func make(_ value: Value) -> LockedStorage<Value> {
        let buffer = create(minimumCapacity: 1) { _ in value }
        // `create` is declared on ManagedBuffer; the object it makes is of the class it is called on.
        let storage = unsafeDowncast(buffer, to: LockedStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
                lock.initialize(to: os_unfair_lock())
            #else
                lock.initialize(to: pthread_mutex_t())
                pthread_mutex_init(lock, nil)
            #endif
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
                pthread_mutex_destroy(lock)
            #endif
            _ = lock.deinitialize(count: 1)
        }
    }

    func withLockOnly<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeMutablePointerToElements { lock throws(Failure) in
            #if canImport(Darwin)
                os_unfair_lock_lock(lock)
                defer { os_unfair_lock_unlock(lock) }
            #else
                pthread_mutex_lock(lock)
                defer { pthread_mutex_unlock(lock) }
            #endif
            return try body()
        }
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try withLockOnly { () throws(Failure) in
            try withUnsafeMutablePointerToHeader { value throws(Failure) in try body(&value.pointee) }
        }
    }
}
