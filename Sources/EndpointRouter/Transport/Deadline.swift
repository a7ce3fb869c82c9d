import Foundation

/// A total deadline enforced by the library.
///
/// URLSession's `timeoutInterval` is an idle timeout truncated to whole seconds on Linux (0.5 s fails
/// at once, 1.9 s becomes 1 s), so the library races the operation against its own clock instead.
package enum Deadline {
    /// The longest deadline honoured, so nanosecond arithmetic can never overflow.
    package static let maximumSeconds: TimeInterval = 1_000_000_000

    /// The deadline honoured for a requested one: NaN, negative or zero values (which a middleware
    /// could write into a `URLRequest`) fall back to Foundation's 60 s, huge ones are capped.
    package static func seconds(_ requested: TimeInterval) -> TimeInterval {
        requested.isFinite && requested > 0 ? min(requested, maximumSeconds) : 60
    }

    /// Runs `operation`, cancelling it and throwing `.timedOut` if it outlives `seconds`.
    static func run<T: Sendable>(
        seconds: TimeInterval,
        _ operation: @escaping @Sendable () async throws(HTTPClientError) -> T
    ) async throws(HTTPClientError) -> T {
        let limit = Self.seconds(seconds)
        let outcome = await withTaskGroup(of: Result<T, HTTPClientError>?.self) { group in
            group.addTask { await capture(operation) }
            group.addTask {
                do {
                    try await Task.sleep(nanoseconds: UInt64(limit * 1_000_000_000))
                } catch {
                    return nil  // cancelled: the operation finished first, or the caller gave up
                }
                return .failure(.timedOut)
            }
            while let next = await group.next() {
                if let next {
                    group.cancelAll()
                    return next
                }
            }
            return .failure(.cancelled)
        }
        return try outcome.get()
    }

    static func capture<T>(_ operation: () async throws(HTTPClientError) -> T) async -> Result<T, HTTPClientError> {
        do {
            return .success(try await operation())
        } catch {
            return .failure(error)
        }
    }
}
