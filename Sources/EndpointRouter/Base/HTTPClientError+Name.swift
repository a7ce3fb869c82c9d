extension HTTPClientError {
    /// The error's case as a short, stable label with no message: `"timedOut"`,
    /// `"transport(-1005)"` with the `URLError` code, `"unacceptableStatusCode(503)"`.
    ///
    /// For logs and metrics dimensions: few distinct values, and never a URL, a body or a secret,
    /// which the full ``description`` may quote.
    public var caseName: String {
        switch self {
        case .badURL: "badURL"
        case .invalidPathSegment: "invalidPathSegment"
        case .delimiterInEndpoint: "delimiterInEndpoint"
        case .invalidHeader: "invalidHeader"
        case .encodingFailed: "encodingFailed"
        case .transport(let error): "transport(\(error.code.rawValue))"
        case .timedOut: "timedOut"
        case .cancelled: "cancelled"
        case .invalidResponse: "invalidResponse"
        case .unacceptableStatusCode(let response): "unacceptableStatusCode(\(response.statusCode))"
        case .decodingFailed: "decodingFailed"
        case .responseTooLarge: "responseTooLarge"
        case .proxyRefused(let statusCode, _): "proxyRefused(\(statusCode))"
        case .authorizationFailed: "authorizationFailed"
        }
    }
}
