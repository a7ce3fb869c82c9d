import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The headers every request starts from, built once rather than per request.
private let defaultHeaders = HeaderFields(["Accept": "application/json", "User-Agent": "EndpointRouter/\(libraryVersion)"])

extension HTTPClient {
    /// Builds the request for this endpoint without sending anything.
    ///
    /// Pure and cheap: use it to inspect or log a request, or in unit tests of a service enum.
    ///
    /// ```swift
    /// let request = try TodoAPI.todo(id: 1).makeRequest()
    /// #expect(request.url.absoluteString == "https://jsonplaceholder.typicode.com/todos/1")
    /// #expect(request.headers["Accept"] == "application/json")
    /// ```
    ///
    /// - Throws: `.badURL`, `.invalidHeader` or `.encodingFailed`, each naming what to fix.
    public func makeRequest() throws(HTTPClientError) -> OutgoingRequest {
        let method = self.method
        var query = ""
        var payload: (body: OutgoingRequest.Body, contentType: String)?
        if let body {
            payload = try body.encoded(with: encoder)
            if let parameters, !parameters.isEmpty {
                query = try URLEncodedForm(style: queryStyle).encode(parameters)
            }
        } else if let parameters, !parameters.isEmpty {
            switch resolvedEncoding(for: method) {
            case .query, .automatic:
                query = try URLEncodedForm(style: queryStyle).encode(parameters)
            case .json:
                payload = (.data(try JSONParameters.encode(parameters)), ContentType.json)
            case .form:
                payload = (.data(Data(try URLEncodedForm(style: queryStyle).encode(parameters).utf8)), ContentType.form)
            }
        }
        try BodyRule.check(method: method, hasBody: payload != nil)
        if let problem = Deadline.problem(timeout, name: "timeout") { throw problem }

        let url = try URLBuilder(host: host, path: path, endpoint: endpoint).url(appendingQuery: query)
        var fields = defaultHeaders
        if let contentType = payload?.contentType { fields.replace(name: "Content-Type", value: contentType) }
        if let headers {
            // Sorted so that the order never depends on hashing; one header needs no sorting.
            if headers.count == 1 {
                for (name, value) in headers { try Self.set(name: name, value: value, in: &fields) }
            } else {
                for (name, value) in headers.sorted(by: { $0.key < $1.key }) { try Self.set(name: name, value: value, in: &fields) }
            }
        }
        return OutgoingRequest(method: method, url: url, headers: fields, body: payload?.body)
    }

    private static func set(name: String, value: String, in fields: inout HeaderFields) throws(HTTPClientError) {
        try RequestChecks.checkHeader(name: name, value: value)
        fields.replace(name: name, value: value)
    }

    private func resolvedEncoding(for method: RequestMethod) -> ParameterEncoding {
        guard parameterEncoding == .automatic else { return parameterEncoding }
        return method.encodesParametersInQuery ? .query : .json
    }
}
