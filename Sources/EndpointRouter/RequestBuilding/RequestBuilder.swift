import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The version written into the default `User-Agent`.
let libraryVersion = "0.1.0"

extension HTTPClient {
    /// Builds the `URLRequest` for this endpoint without sending anything.
    ///
    /// Pure and cheap: use it to inspect or log a request, or in unit tests of a service enum.
    ///
    /// ```swift
    /// let request = try TodoAPI.todo(id: 1).makeURLRequest()
    /// #expect(request.url?.absoluteString == "https://jsonplaceholder.typicode.com/todos/1")
    /// ```
    ///
    /// - Throws: `.badURL`, `.invalidHeader` or `.encodingFailed`, each naming what to fix.
    public func makeURLRequest() throws(HTTPClientError) -> URLRequest {
        let method = self.method
        var query = ""
        var payload: (data: Data, contentType: String)?
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
                payload = (try JSONParameters.encode(parameters), ContentType.json)
            case .form:
                payload = (Data(try URLEncodedForm(style: queryStyle).encode(parameters).utf8), ContentType.form)
            }
        }
        if payload != nil, method == .get || method == .head {
            throw .encodingFailed("""
                a \(method.rawValue) request cannot carry a body; send the parameters in the query \
                (parameterEncoding .query) or use another method
                """)
        }

        let url = try URLBuilder(host: host, path: path, endpoint: endpoint).url(appendingQuery: query)
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        request.httpBody = payload?.data
        if let timeout {
            guard timeout > 0, timeout.isFinite else {
                throw .encodingFailed("timeout \(timeout) is not a positive number of seconds")
            }
            request.timeoutInterval = timeout
        }
        var fields = HTTPHeaders(["Accept": "application/json", "User-Agent": "EndpointRouter/\(libraryVersion)"])
        if let contentType = payload?.contentType { fields.replace(name: "Content-Type", value: contentType) }
        for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            // Checked before they reach URLRequest, which would silently drop a value with a line break.
            try RequestValidation.validateHeader(name: name, value: value)
            fields.replace(name: name, value: value)
        }
        for field in fields {
            request.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return request
    }

    private func resolvedEncoding(for method: HTTPMethod) -> ParameterEncoding {
        guard parameterEncoding == .automatic else { return parameterEncoding }
        return method.encodesParametersInQuery ? .query : .json
    }
}
