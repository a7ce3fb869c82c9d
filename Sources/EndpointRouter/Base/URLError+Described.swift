import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLError {
    /// A `URLError` whose description is the given sentence, for failures the library or a testing
    /// transport detects itself, or for a URLSession failure the library reclassifies (then the
    /// original is kept as `underlying`): the one place such errors are built.
    package static func described(
        _ code: URLError.Code, _ text: String, url: URL? = nil,
        underlying: (any Error)? = nil
    ) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: text]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return URLError(code, userInfo: info)
    }
}

extension HTTPClientError {
    /// `.transport` with a `URLError` of `code` described by `text`: how a transport outside this
    /// package (such as `EndpointRouterAsyncHTTPClient`) reports a failure with a specific code and a
    /// sentence a person can act on, built the same way as the library's own.
    ///
    /// <!-- snippet: prelude=doc,doc-intercept -->
    /// ```swift
    /// throw HTTPClientError.transport(.cannotConnectToHost, "nothing listens on \(host)", url: request.url)
    /// ```
    public static func transport(_ code: URLError.Code, _ text: String, url: URL? = nil) -> HTTPClientError {
        .transport(URLError.described(code, text, url: url))
    }
}
