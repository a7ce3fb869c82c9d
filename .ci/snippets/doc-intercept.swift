// For a doc-comment block that is the body of a middleware's `intercept`: `request`, `context` and
// `next` are in scope, and the block returns the response.
struct DocMiddleware: HTTPMiddleware {
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        // @snippet
    }
}
