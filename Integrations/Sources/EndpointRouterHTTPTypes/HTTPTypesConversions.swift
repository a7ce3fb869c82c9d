import EndpointRouter
import Foundation
import HTTPTypes

// Conversions between EndpointRouter's request and response values and swift-http-types' (the
// currency of Hummingbird 2, swift-openapi-runtime and SwiftNIO's newer APIs): `OutgoingRequest`
// and `IncomingResponse` against `HTTPRequest` and `HTTPResponse`. The signatures here qualify both
// sides, for the reader.
// HTTPTypes' values have no body: a body goes along as a separate argument, or is left out.

extension HTTPFields {
    /// `headers` as swift-http-types fields, in the same order, repeats kept.
    ///
    /// Throws ``HTTPClientError/invalidHeader(_:)`` for a name that is not an HTTP token (or is a
    /// pseudo-header such as `:path`) and for a value with a character HTTP forbids (CR, LF, NUL):
    /// swift-http-types would silently rewrite such a value, and the request would not be the one
    /// built. The error names the field, never its value.
    ///
    /// ```swift
    /// let fields = try HTTPFields(EndpointRouter.HeaderFields(["Accept": "application/json"]))
    /// ```
    public init(_ headers: EndpointRouter.HeaderFields) throws(HTTPClientError) {
        self.init()
        for field in headers.fields {
            guard !field.name.hasPrefix(":"), let name = HTTPField.Name(field.name) else {
                throw .invalidHeader("the header name \"\(field.name)\" is not a valid HTTP field name")
            }
            guard HTTPField.isValidValue(field.value) else {
                throw .invalidHeader("the value of \"\(field.name)\" has a character HTTP forbids (CR, LF or NUL)")
            }
            append(HTTPField(name: name, value: field.value))
        }
    }
}

extension EndpointRouter.HeaderFields {
    /// `fields` as EndpointRouter headers, in the same order, each name as it was written.
    ///
    /// ```swift
    /// let headers = EndpointRouter.HeaderFields(HTTPFields([HTTPField(name: .accept, value: "text/plain")]))
    /// ```
    public init(_ fields: HTTPFields) {
        self.init(fields.map { EndpointRouter.HeaderFields.Field(name: $0.name.rawName, value: $0.value) })
    }
}

extension HTTPTypes.HTTPRequest {
    /// The head of `request`: method, scheme, authority (host and port, no user information), path
    /// with query, and headers. The body is not part of an `HTTPTypes.HTTPRequest`; read it from
    /// `request.body`.
    ///
    /// Throws ``HTTPClientError/badURL(_:)`` for a URL without a scheme or host, and
    /// ``HTTPClientError/invalidHeader(_:)`` as ``HTTPFields/init(_:)`` does.
    ///
    /// ```swift
    /// let request = EndpointRouter.OutgoingRequest(method: .post, url: URL(string: "https://api.example.com/todos?page=2")!)
    /// let head = try HTTPTypes.HTTPRequest(request)   // POST, "https", "api.example.com", "/todos?page=2"
    /// ```
    public init(_ request: EndpointRouter.OutgoingRequest) throws(HTTPClientError) {
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme, let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw .badURL("an HTTPTypes request needs an absolute URL with a scheme and a host")
        }
        let authority = components.port.map { "\(host):\($0)" } ?? host
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        // Every EndpointRouter method is a token HTTPTypes accepts; the fallback is never taken.
        let method = HTTPTypes.HTTPRequest.Method(request.method.rawValue) ?? .get
        self.init(method: method, scheme: scheme, authority: authority, path: path, headerFields: try HTTPFields(request.headers))
    }
}

extension EndpointRouter.OutgoingRequest {
    /// A request with the head of `request` (method, URL from scheme, authority and path, headers)
    /// and `body`.
    ///
    /// Throws ``HTTPClientError/badURL(_:)`` when the head lacks a scheme, an authority or a path
    /// (an `OPTIONS *` or `CONNECT` head) or they do not form a URL, and
    /// ``HTTPClientError/encodingFailed(_:)`` for a method EndpointRouter does not send (a WebDAV
    /// `PROPFIND`, say).
    ///
    /// ```swift
    /// let head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/todos")
    /// let request = try EndpointRouter.OutgoingRequest(head)
    /// ```
    public init(_ request: HTTPTypes.HTTPRequest, body: Body? = nil) throws(HTTPClientError) {
        guard let method = RequestMethod(rawValue: request.method.rawValue) else {
            throw .encodingFailed(
                "the method \(request.method.rawValue) is not one EndpointRouter sends (\(RequestMethod.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path, path.hasPrefix("/"),
            let url = URL(string: "\(scheme)://\(authority)\(path)"), url.host != nil
        else {
            throw .badURL("the HTTPTypes request has no scheme, authority and absolute path that form a URL")
        }
        self.init(method: method, url: url, headers: EndpointRouter.HeaderFields(request.headerFields), body: body)
    }
}

extension HTTPTypes.HTTPResponse {
    /// The head of `response`: status and headers. The body stays in `response.body`.
    ///
    /// Throws ``HTTPClientError/invalidResponse`` for a status outside 100...999 and
    /// ``HTTPClientError/invalidHeader(_:)`` as ``HTTPFields/init(_:)`` does.
    ///
    /// ```swift
    /// let head = try HTTPTypes.HTTPResponse(EndpointRouter.IncomingResponse(statusCode: 201))   // .created
    /// ```
    public init(_ response: EndpointRouter.IncomingResponse) throws(HTTPClientError) {
        try self.init(response.head)
    }

    /// The status and headers of `head`, as ``init(_:)-(EndpointRouter.IncomingResponse)`` converts them.
    public init(_ head: ResponseHead) throws(HTTPClientError) {
        guard (100...999).contains(head.statusCode) else { throw .invalidResponse }
        self.init(status: HTTPTypes.HTTPResponse.Status(code: head.statusCode), headerFields: try HTTPFields(head.headers))
    }
}

extension EndpointRouter.IncomingResponse {
    /// A response with the status and headers of `response`, and `body`; `url` is the address it
    /// answered, when known.
    ///
    /// ```swift
    /// let response = EndpointRouter.IncomingResponse(HTTPTypes.HTTPResponse(status: .ok), body: Data("{}".utf8))
    /// ```
    public init(_ response: HTTPTypes.HTTPResponse, body: Data = Data(), url: URL? = nil) {
        self.init(statusCode: response.status.code, headers: EndpointRouter.HeaderFields(response.headerFields), body: body, url: url)
    }
}
