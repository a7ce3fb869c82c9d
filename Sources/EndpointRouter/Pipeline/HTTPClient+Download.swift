import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPClient {
    /// Downloads the response body into the file at `destination`, streaming it to disk (never into
    /// memory), and answers with the destination.
    ///
    /// ```swift
    /// let file = documents.appendingPathComponent("report.pdf")
    /// switch await FilesAPI.report(id: 7).download(to: file, progress: { print($0.completedBytes) }) {
    /// case .success(let response): open(response.value)
    /// case .failure(let error): show(error)
    /// }
    /// ```
    ///
    /// The status is validated before the file is kept: a status outside ``acceptableStatusCodes``
    /// leaves no file and fails with `.unacceptableStatusCode`, carrying up to 1 MiB of the error
    /// body. An existing file at `destination` is replaced atomically, only once the whole body
    /// arrived; cancellation and every failure leave it untouched and remove the partial download.
    /// The folder of `destination` must exist. ``maxResponseSize`` does not apply. `timeout`,
    /// `headers` and `middlewares` change this call only, as for
    /// ``request(type:at:timeout:headers:middlewares:)``.
    ///
    /// `progress` is called as the body arrives, on a Dispatch global queue, never on the
    /// transport's I/O thread nor in the Swift concurrency pool (a slow closure cannot hold up
    /// other calls). Never twice at once: values that come while it runs coalesce to the newest,
    /// and they never go backwards. The call waits for its last delivery (on success, the total)
    /// until its deadline, never longer, and nothing starts after the call returns; a closure still
    /// running at the deadline is not waited for and its undelivered newest value is dropped. See
    /// <doc:DownloadsAndUploads>.
    nonisolated(nonsending)
        public func download(
            to destination: URL,
            timeout: TimeInterval? = nil,
            headers: [String: String] = [:],
            middlewares: [any HTTPMiddleware] = [],
            progress: (@Sendable (TransferProgress) -> Void)? = nil
        ) async -> Result<EndpointResponse<URL>, HTTPClientError>
    {
        switch Call.starting(self, CallOverrides(timeout: timeout, headers: headers, middlewares: middlewares)) {
        case .success(let call): return await call.download(to: destination, progress: progress.map(ProgressReporter.init))
        case .failure(let error): return .failure(error)
        }
    }
}

extension Call {
    func download(to destination: URL, progress: ProgressReporter?) async -> Result<EndpointResponse<URL>, HTTPClientError> {
        let acceptable = acceptableStatusCodes
        let directory = destination.deletingLastPathComponent()
        let scope = CallScope(.file(directory: directory, isAcceptable: { acceptable.contains($0) }, progress: progress))
        // No later than `send`'s own: the wait for the progress closure is within the call's deadline.
        let deadline = Deadline.instant(after: timeout)
        let received = await send(into: scope, uploadProgress: nil)
        // The closure is over before the call returns (or the deadline passed), the total delivered
        // when the body is whole (see `ProgressReporter`).
        await progress?.finish(deliveringLast: (try? received.get()) != nil, by: deadline)
        defer { scope.close(keeping: destination) }
        if Task.isCancelled { return .failure(.cancelled) }
        switch received {
        case .failure(let error):
            return .failure(error)
        case .success(let response):
            let raw = EndpointResponse(
                value: response.body, statusCode: response.statusCode, headers: response.headers,
                data: response.body, request: request, url: response.url ?? request.url)
            guard acceptable.contains(response.statusCode) else {
                return .failure(.unacceptableStatusCode(raw))
            }
            return Result { () throws(HTTPClientError) in
                try Self.place(response, at: destination)
                return raw.map { _ in destination }
            }
        }
    }

    /// Moves the downloaded file to `destination`, replacing what is there atomically; a body a
    /// middleware produced in memory is written to a temporary file first for the same guarantee.
    private static func place(_ response: IncomingResponse, at destination: URL) throws(HTTPClientError) {
        var source = response.bodyFile
        if source == nil {
            let temporary = destination.deletingLastPathComponent()
                .appendingPathComponent(".endpointrouter-\(UUID().uuidString).download")
            do {
                try response.body.write(to: temporary)
            } catch {
                throw .transport(.cannotCreateFile, "cannot write the download next to \(destination.path): \(error.localizedDescription)")
            }
            source = temporary
        }
        guard let source else { return }
        if rename(source.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(source.path)
            throw .transport(.cannotMoveFile, "cannot move the download to \(destination.path): \(reason)", url: destination)
        }
    }
}
