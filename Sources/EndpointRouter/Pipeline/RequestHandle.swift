import Foundation

/// A request started with a completion handler; keep it to cancel the request.
///
/// ```swift
/// let handle = API.search(text).request(type: [Hit].self) { result in print(result) }
/// handle.cancel()
/// ```
public final class RequestHandle: Sendable {
    private let task: Task<Void, Never>

    private init(_ task: Task<Void, Never>) { self.task = task }

    /// Starts `operation` in a task and hands its result to `completionHandler`, on `queue` if given.
    static func start<T>(
        queue: DispatchQueue?,
        completionHandler: @escaping @Sendable (Result<T, HTTPClientError>) -> Void,
        operation: @escaping @Sendable () async -> Result<T, HTTPClientError>
    ) -> RequestHandle {
        RequestHandle(
            Task {
                let result = Task.isCancelled ? .failure(.cancelled) : await operation()
                // `T` need not be Sendable. Safe: the result moves to the completion handler once and this
                // task never touches it again, so no two threads ever share it.
                nonisolated(unsafe) let delivered = result
                if let queue {
                    queue.async { completionHandler(delivered) }
                } else {
                    completionHandler(delivered)
                }
            })
    }

    /// Cancels the request without blocking the calling thread; the completion handler then
    /// receives `.failure(.cancelled)` promptly unless the result was already delivered.
    public func cancel() { task.cancel() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }
}
