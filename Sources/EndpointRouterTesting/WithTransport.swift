import EndpointRouter

/// Runs `operation` with every `HTTPClient` request in it, and in the tasks it starts, sent through
/// `transport` instead of the endpoint's own: the short form of
/// ``withOverride(_:isolation:operation:)`` with `TaskOverride(transport: transport)`, and so, like
/// it, with credential stores of its own.
///
/// ```swift
/// let stub = StubTransport().on(.get, "/todos", respond: .fixture("todos.json", in: fixtures))
/// let titles = try await withTransport(stub) {
///     try await TodoAPI.list(userId: nil).request(type: [Todo].self).get().map(\.title)
/// }
/// ```
///
/// Middlewares still run; only the transport at the end of the chain is replaced. It throws what
/// `operation` throws, with its type; inside `do throws(MyError)` write the closure's type,
/// `{ () async throws(MyError) in … }`, as Swift 6 infers `any Error` for a closure with `try`:
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
    try await withOverride(TaskOverride(transport: transport), isolation: isolation, operation: operation)
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
    try withOverride(TaskOverride(transport: transport), operation: operation)
}
