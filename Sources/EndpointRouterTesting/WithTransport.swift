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
public func withTransport<R>(
    _ transport: any HTTPTransport,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> R
) async rethrows -> R {
    try await TransportOverride.$current.withValue(transport, operation: operation)
}

/// Runs synchronous `operation` with `transport` bound, as the async form does: for requests started
/// with a completion handler, which take the transport when they are started.
///
/// ```swift
/// withTransport(stub) {
///     TodoAPI.todo(id: 1).request(type: Todo.self) { result in ... }
/// }
/// ```
public func withTransport<R>(_ transport: any HTTPTransport, operation: () throws -> R) rethrows -> R {
    try TransportOverride.$current.withValue(transport, operation: operation)
}
