import EndpointRouter

/// Runs `operation` with `override` in force for every `HTTPClient` call in it and in the tasks it
/// starts: its transport, credential stores, middlewares, options and clock instead of the
/// services' own. The one way to give a test its own of everything a service reads at call time.
///
/// ```swift
/// let clock = VirtualClock()
/// let stub = StubTransport().on(.get, "/todos/1", respond: .json(Todo(userId: 1, id: 1, title: "t", completed: false)))
/// let todo = try await withOverride(TaskOverride(transport: stub, clock: clock)) {
///     try await TodoAPI.todo(id: 1).request(type: Todo.self).get()
/// }
/// ```
///
/// The binding is task-local: tests running in parallel, each with its own override, never see
/// each other's traffic, credentials or time, and nothing is process-wide. Each override has its
/// own credential stores (see `TaskOverride`), so a service whose `CredentialStore` is a
/// `static let` needs no change. Work that escapes the task (`Task.detached`, a callback on another
/// thread) does not inherit it. Bound inside another, it keeps what the outer one sets and this
/// one leaves `nil`.
///
/// It throws what `operation` throws, with its type. Swift 6 infers the thrown type of a closure
/// that contains `try` as `any Error` whatever its context asks (no overload can change that), so
/// inside `do throws(MyError)` — `HTTPClientError` included — write the closure's type once:
///
/// ```swift
/// struct Refused: Error {}
/// do throws(Refused) {
///     try await withOverride(TaskOverride(transport: StubTransport())) { () async throws(Refused) in throw Refused() }
/// } catch {
///     print(error)   // a Refused, without a cast
/// }
/// ```
public func withOverride<R, Failure: Error>(
    _ override: TaskOverride,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(Failure) -> R
) async throws(Failure) -> R {
    // TaskLocal.withValue rethrows untyped; the result carries the typed error across it.
    let result: Result<R, Failure> = await TaskOverride.$current.withValue(
        override.nested(in: TaskOverride.current),
        operation: {
            do throws(Failure) {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }, isolation: isolation)
    return try result.get()
}

/// Runs synchronous `operation` with `override` bound, as the async form does: for requests started
/// with a completion handler, which read the override when they are started.
///
/// ```swift
/// let handle = withOverride(TaskOverride(transport: StubTransport())) {
///     TodoAPI.todo(id: 1).request(type: Todo.self) { result in print(result) }
/// }
/// ```
public func withOverride<R, Failure: Error>(_ override: TaskOverride, operation: () throws(Failure) -> R) throws(Failure) -> R {
    let result: Result<R, Failure> = TaskOverride.$current.withValue(override.nested(in: TaskOverride.current)) {
        do throws(Failure) {
            return .success(try operation())
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
