/// What ``RequestChecks`` passed of the request after the last middleware. The pipeline vouches for
/// exactly these values on the context it hands down, so that a transport handed them need not check
/// them again (``RequestChecks/checkBeforeSending(_:in:)``); anything else it is handed, a redirect
/// hop or headers added since, it checks.
struct CheckedRequest: Sendable {
    /// The URL's text rather than the URL: the text is what the check reads.
    let url: String
    /// The header fields as checked: a transport compares what it is handed with these, so that a
    /// field added or changed after the checks (by a transport's caller) is checked again.
    let headers: HeaderFields

    init(_ request: OutgoingRequest) {
        url = request.url.absoluteString
        headers = request.headers
    }
}
