import EndpointRouter

/// Runs `operation` with every `HTTPClient` request in it, and in the tasks it starts, sent through
/// `transport` instead of the endpoint's own: the way to test app code whose API enums stay unchanged.
///
/// ```swift
/// let stub = StubTransport().on(.get, "/todos", respond: .fixture("todos.json", in: fixtures))
/// let titles = try await withTransport(stub) {
///     try await TodoAPI.list(userId: nil).request(type: [Todo].self).get().map(\.title)
/// }
/// ```
///
/// The binding is task-local (it sets `TransportOverride.current`): tests running in parallel, each
/// with its own transport, never see each other's traffic. Work that escapes the task, such as a
/// `Task.detached` or a callback on another thread, does not inherit it. Middlewares still run;
/// only the transport at the end of the chain is replaced.
///
/// It throws what `operation` throws, with its type: a body throwing `HTTPClientError` lets a test
/// match the error without a cast.
///
/// ```swift
/// await #expect(throws: HTTPClientError.cancelled) {
///     try await withTransport(stub) { try await TodoAPI.todo(id: 1).request(type: Todo.self).get() }
/// }
/// ```
public func withTransport<R, Failure: Error>(
    _ transport: any HTTPTransport,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(Failure) -> R
) async throws(Failure) -> R {
    // TaskLocal.withValue rethrows untyped; the result carries the typed error across it.
    let result: Result<R, Failure> = await TransportOverride.$current.withValue(
        transport,
        operation: {
            do throws(Failure) {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }, isolation: isolation)
    return try result.get()
}

/// Runs synchronous `operation` with `transport` bound, as the async form does: for requests started
/// with a completion handler, which take the transport when they are started.
///
/// ```swift
/// let handle = withTransport(stub) {
///     TodoAPI.todo(id: 1).request(type: Todo.self) { result in print(result) }
/// }
/// ```
public func withTransport<R, Failure: Error>(_ transport: any HTTPTransport, operation: () throws(Failure) -> R) throws(Failure) -> R {
    let result: Result<R, Failure> = TransportOverride.$current.withValue(transport) {
        do throws(Failure) {
            return .success(try operation())
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
