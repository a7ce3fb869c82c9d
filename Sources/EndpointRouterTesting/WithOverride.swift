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
/// It throws what `operation` throws, with its type. Swift infers a closure's thrown type as
/// `any Error` unless told, so inside `do throws(MyError)` write the closure's type once:
///
/// ```swift
/// struct Refused: Error {}
/// do throws(Refused) {
///     try await withOverride(TaskOverride(transport: StubTransport())) { () async throws(Refused) in throw Refused() }
/// } catch {
///     print(error)   // a Refused, without a cast
/// }
/// ```
///
/// A body that only throws `HTTPClientError` needs no annotation: an overload takes it as such.
public func withOverride<R, Failure: Error>(
    _ override: TaskOverride,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(Failure) -> R
) async throws(Failure) -> R {
    try await bind(override, isolation: isolation, operation)
}

/// ``withOverride(_:isolation:operation:)`` for a body that throws `HTTPClientError`, so that it
/// needs no annotation inside `do throws(HTTPClientError)`:
///
/// ```swift
/// do throws(HTTPClientError) {
///     let todo = try await withOverride(TaskOverride(transport: StubTransport())) {
///         try await TodoAPI.todo(id: 1).request(type: Todo.self).get()
///     }
///     print(todo.title)
/// } catch {
///     print(error.localizedDescription)
/// }
/// ```
public func withOverride<R>(
    _ override: TaskOverride,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(HTTPClientError) -> R
) async throws(HTTPClientError) -> R {
    try await bind(override, isolation: isolation, operation)
}

/// ``withOverride(_:isolation:operation:)`` for a body that throws nothing, which then needs no `try`.
///
/// ```swift
/// let result = await withOverride(TaskOverride(transport: StubTransport())) {
///     await TodoAPI.todo(id: 1).request(type: Todo.self)
/// }
/// ```
public func withOverride<R>(
    _ override: TaskOverride,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async -> R
) async -> R {
    await bind(override, isolation: isolation, operation)
}

/// Binds `override`, nested in the one in force, around `operation`.
private func bind<R, Failure: Error>(
    _ override: TaskOverride, isolation: isolated (any Actor)?, _ operation: () async throws(Failure) -> R
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
