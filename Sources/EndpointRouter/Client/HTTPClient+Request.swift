import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPClient {
    /// Sends the endpoint's request and decodes the body as `type`.
    ///
    /// ```swift
    /// let result = await TodoAPI.todo(id: 1).request(type: Todo.self)
    /// let todo = try await TodoAPI.todo(id: 1).request(type: Todo.self).get()   // the throwing form
    /// ```
    ///
    /// `Data` receives the raw body, `String` the UTF-8 text and ``EmptyResponse`` accepts any or no
    /// body; other types decode with ``decoder``. Cancelling the calling `Task` cancels the request.
    ///
    /// It starts on the caller's actor (so a `@MainActor` model can hold a non-`Sendable` service
    /// value and call it); sending and decoding then run off that actor.
    nonisolated(nonsending)
    public func request<T: Decodable & SendableMetatype>(type: T.Type) async -> Result<T, HTTPClientError> {
        await response(type: type).map(\.value)
    }

    /// Like ``request(type:)``, with the status code, headers and raw body alongside the value.
    ///
    /// ```swift
    /// let response = try await TodoAPI.list(userId: nil).response(type: [Todo].self).get()
    /// let total = response.headers["X-Total-Count"]
    /// ```
    nonisolated(nonsending)
    public func response<T: Decodable & SendableMetatype>(type: T.Type) async -> Result<EndpointResponse<T>, HTTPClientError> {
        if Task.isCancelled { return .failure(.cancelled) }
        switch prepare() {
        case .success(let prepared): return await prepared.run(type)
        case .failure(let error): return .failure(error)
        }
    }

    /// Sends the request and calls `completionHandler` exactly once, on `queue` when given.
    ///
    /// ```swift
    /// let handle = TodoAPI.todo(id: 1).request(type: Todo.self, queue: .main) { result in
    ///     label.text = (try? result.get())?.title
    /// }
    /// handle.cancel()   // the handler then receives .failure(.cancelled)
    /// ```
    ///
    /// A transport bound with `TransportOverride` (`withTransport` in tests) applies here too.
    /// (`SendableMetatype` only rules out types whose `Decodable` conformance is isolated to an actor.)
    @discardableResult
    public func request<T: Decodable & SendableMetatype>(
        type: T.Type,
        queue: DispatchQueue? = nil,
        completionHandler: @escaping @Sendable (Result<T, HTTPClientError>) -> Void
    ) -> RequestHandle {
        let prepared = prepare()
        let task = Task {
            let result: Result<T, HTTPClientError>
            switch prepared {
            case .success(let prepared):
                result = Task.isCancelled ? .failure(.cancelled) : await prepared.run(T.self).map(\.value)
            case .failure(let error):
                result = .failure(error)
            }
            // Safe: the result is handed over once and never touched here again.
            nonisolated(unsafe) let delivered = result
            if let queue {
                queue.async { completionHandler(delivered) }
            } else {
                completionHandler(delivered)
            }
        }
        return RequestHandle(task)
    }

    /// Everything the request needs, taken from the endpoint now, so that sending needs no access
    /// to `self` (which need not be `Sendable`).
    func prepare() -> Result<PreparedRequest, HTTPClientError> {
        do throws(HTTPClientError) {
            let request = try makeURLRequest()
            let chain = MiddlewareChain(middlewares: middlewares, transport: TransportOverride.current ?? transport)
            return .success(PreparedRequest(request: request, chain: chain,
                                            acceptableStatusCodes: acceptableStatusCodes, decoder: decoder))
        } catch {
            return .failure(error)
        }
    }
}

/// A built request and what is needed to send and decode it.
struct PreparedRequest: Sendable {
    let request: URLRequest
    let chain: MiddlewareChain
    let acceptableStatusCodes: Range<Int>
    let decoder: JSONDecoder

    func run<T: Decodable & SendableMetatype>(_ type: T.Type) async -> sending Result<EndpointResponse<T>, HTTPClientError> {
        let received = await Deadline.capture { () throws(HTTPClientError) in try await chain.send(request) }
        if Task.isCancelled { return .failure(.cancelled) }
        switch received {
        case .success(let response):
            return ResponseDecoding.decode(type, from: response, request: request,
                                           acceptableStatusCodes: acceptableStatusCodes, decoder: decoder)
        case .failure(let error):
            return .failure(error)
        }
    }
}

/// A request started with a completion handler; keep it to cancel the request.
///
/// ```swift
/// let handle = API.search(text).request(type: [Hit].self) { result in ... }
/// handle.cancel()
/// ```
public final class RequestHandle: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) { self.task = task }

    /// Cancels the request; the completion handler then receives `.failure(.cancelled)` unless the
    /// result was already delivered.
    public func cancel() { task.cancel() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }
}
