/// The rule that GET and HEAD requests carry no body, with its one wording.
///
/// URLSession on Linux fails such a request with a misleading "resource exceeds maximum size" and
/// prints to standard error; servers and proxies may drop or reject the body. The library refuses it
/// when building the request and again before any transport, whoever added the body.
package enum BodyRule {
    /// Throws `.encodingFailed` when `method` may not carry the body it has.
    package static func check(method: RequestMethod, hasBody: Bool) throws(HTTPClientError) {
        guard hasBody, method == .get || method == .head else { return }
        throw .encodingFailed(
            """
            a \(method.rawValue) request cannot carry a body; send the parameters in the query \
            (parameterEncoding .query) or use another method such as POST
            """)
    }
}
