import Foundation

extension HTTPClient {
    /// Sends the endpoint's request and decodes the body as `type`.
    ///
    /// ```swift
    /// let result = await TodoAPI.todo(id: 1).request(type: Todo.self)
    /// let todo = try await TodoAPI.todo(id: 1).request(type: Todo.self).get()   // the throwing form
    /// ```
    ///
    /// `Data` receives the raw body, `String` the UTF-8 text and ``EmptyResponse`` accepts any or no
    /// body; other types decode with ``decoder``. The whole call — middlewares, retries, redirects —
    /// ends by the endpoint's ``timeout`` with `.timedOut`; cancelling the calling `Task` ends it at
    /// once with `.cancelled`.
    ///
    /// It starts on the caller's actor (so a `@MainActor` model can hold a non-`Sendable` service
    /// value and call it); sending and decoding then run off that actor.
    ///
    /// One call can change what the endpoint declares:
    ///
    /// ```swift
    /// let todo = await TodoAPI.todo(id: 1).request(type: Todo.self, timeout: 5,
    ///                                             headers: ["X-Request-ID": id],
    ///                                             middlewares: [LoggingMiddleware()])
    /// ```
    ///
    /// - Parameters:
    ///   - type: what to decode the body, or the value at `keyPath`, into.
    ///   - keyPath: decode the value under these keys, joined by dots, instead of the whole body:
    ///     `request(type: [Question].self, at: "items")` for `{"items": [...]}`.
    ///   - timeout: replaces the endpoint's ``HTTPClient/timeout`` for this call.
    ///   - headers: set on this call's request, replacing the endpoint's headers of the same name.
    ///   - middlewares: run after the endpoint's ``HTTPClient/middlewares``, closest to the
    ///     transport, for this call only.
    nonisolated(nonsending)
        public func request<T: Decodable & SendableMetatype>(
            type: T.Type,
            at keyPath: String? = nil,
            timeout: TimeInterval? = nil,
            headers: [String: String] = [:],
            middlewares: [any HTTPMiddleware] = []
        ) async -> Result<T, HTTPClientError>
    {
        switch await response(type: type, at: keyPath, timeout: timeout, headers: headers, middlewares: middlewares) {
        case .success(let response): .success(response.value)
        case .failure(let error): .failure(error)
        }
    }

    /// Like ``request(type:at:timeout:headers:middlewares:)``, with the status code, headers and raw
    /// body alongside the value, and, when asked, the progress of the request body going out.
    ///
    /// ```swift
    /// let response = try await TodoAPI.list(userId: nil).response(type: [Todo].self).get()
    /// let total = response.headers["X-Total-Count"]
    /// ```
    ///
    /// For a large upload, such as ``EndpointBody/file(_:contentType:)``, pass `uploadProgress`:
    ///
    /// ```swift
    /// let result = await MediaAPI.upload(video).response(type: Media.self) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    ///
    /// `uploadProgress` is called as the body goes out, on a Dispatch global queue, never on the
    /// transport's I/O thread nor in the Swift concurrency pool (a slow closure cannot hold up
    /// other calls). Never twice at once: values that come while it runs coalesce to the newest,
    /// and they never go backwards. The call waits for its last delivery (on success, the last
    /// value the transport reported: the whole body, for a transport that reports it) until its
    /// deadline, never longer, and nothing starts after the call returns; a closure still running
    /// at the deadline is not waited for and its undelivered newest value is dropped. See
    /// <doc:DownloadsAndUploads>.
    ///
    /// - Parameters:
    ///   - type: what to decode the body, or the value at `keyPath`, into.
    ///   - keyPath: decode the value under these keys, joined by dots, instead of the whole body.
    ///   - timeout: replaces the endpoint's ``HTTPClient/timeout`` for this call.
    ///   - headers: set on this call's request, replacing the endpoint's headers of the same name.
    ///   - middlewares: run after the endpoint's ``HTTPClient/middlewares``, for this call only.
    ///   - uploadProgress: told how much of the request body has gone out; `nil` (the default)
    ///     asks for no report.
    nonisolated(nonsending)
        public func response<T: Decodable & SendableMetatype>(
            type: T.Type,
            at keyPath: String? = nil,
            timeout: TimeInterval? = nil,
            headers: [String: String] = [:],
            middlewares: [any HTTPMiddleware] = [],
            uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil
        ) async -> Result<EndpointResponse<T>, HTTPClientError>
    {
        await send(
            type, CallOverrides(keyPath: keyPath, timeout: timeout, headers: headers, middlewares: middlewares),
            uploadProgress: uploadProgress.map(ProgressReporter.init))
    }

    nonisolated(nonsending)
        private func send<T: Decodable & SendableMetatype>(_ type: T.Type, _ overrides: CallOverrides, uploadProgress: ProgressReporter?)
        async
        -> Result<EndpointResponse<T>, HTTPClientError>
    {
        switch Call.starting(self, overrides) {
        case .success(let call): return await call.response(type, uploadProgress: uploadProgress)
        case .failure(let error): return .failure(error)
        }
    }

    /// Sends the request and calls `completionHandler` exactly once, on `queue` when given.
    ///
    /// ```swift
    /// let handle = TodoAPI.todo(id: 1).request(type: Todo.self, queue: .main) { result in
    ///     label.text = (try? result.get())?.title
    /// }
    /// handle.cancel()   // the handler then receives .failure(.cancelled), at once
    /// ```
    ///
    /// A ``TaskOverride`` bound (`withOverride` or `withTransport` in tests) applies here too.
    /// (`SendableMetatype` only rules out types whose `Decodable` conformance is isolated to an actor.)
    @discardableResult
    public func request<T: Decodable & SendableMetatype>(
        type: T.Type,
        at keyPath: String? = nil,
        timeout: TimeInterval? = nil,
        headers: [String: String] = [:],
        middlewares: [any HTTPMiddleware] = [],
        queue: DispatchQueue? = nil,
        completionHandler: @escaping @Sendable (Result<T, HTTPClientError>) -> Void
    ) -> RequestHandle {
        let overrides = CallOverrides(keyPath: keyPath, timeout: timeout, headers: headers, middlewares: middlewares)
        let call = Result { () throws(HTTPClientError) in try Call(self, overrides) }
        return RequestHandle.start(queue: queue, completionHandler: completionHandler) {
            switch call {
            case .success(let call): await call.response(T.self, uploadProgress: nil).map { $0.value }
            case .failure(let error): .failure(error)
            }
        }
    }
}
