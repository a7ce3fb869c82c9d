import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A decoded value together with everything the server sent.
///
/// ```swift
/// let response = try await API.todo(1).response(type: Todo.self).get()
/// print(response.statusCode, response.headers["ETag"] ?? "-", response.value.title)
/// ```
public struct EndpointResponse<Value> {
    /// The decoded body.
    public let value: Value
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers, in order, with case-insensitive lookup.
    public let headers: HeaderFields
    /// The raw body, as received (already decompressed by the transport).
    public let data: Data
    /// The request that was built for the endpoint, before any middleware changed it.
    public let request: OutgoingRequest
    /// The URL that answered, after any redirects.
    public let url: URL?

    /// Creates a response; transports and tests use it, apps receive it.
    public init(value: Value, statusCode: Int, headers: HeaderFields, data: Data, request: OutgoingRequest, url: URL?) {
        self.value = value
        self.statusCode = statusCode
        self.headers = headers
        self.data = data
        self.request = request
        self.url = url
    }

    /// The same response carrying another value.
    public func map<NewValue>(_ transform: (Value) throws -> NewValue) rethrows -> EndpointResponse<NewValue> {
        EndpointResponse<NewValue>(
            value: try transform(value), statusCode: statusCode, headers: headers,
            data: data, request: request, url: url)
    }

    /// Decodes the raw body as `type`, typically to read an API's error payload.
    ///
    /// ```swift
    /// if case .failure(.unacceptableStatusCode(let response)) = result,
    ///    let apiError = try? response.decode(APIError.self) {
    ///     print(apiError.message)
    /// }
    /// ```
    public func decode<E: Decodable>(_ type: E.Type, using decoder: JSONDecoder = JSONDecoder()) throws(HTTPClientError) -> E {
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw .decodingFailed(map { _ in data }, DecodingFailure.describe(error, type: type, body: data))
        }
    }
}

extension EndpointResponse: Sendable where Value: Sendable {}
extension EndpointResponse: Equatable where Value: Equatable {}

/// The body type for requests whose response body does not matter: empty bodies, `204 No Content`
/// and `HEAD` responses decode to it, and so does any other body, which is ignored.
///
/// ```swift
/// let result = await API.deleteTodo(1).request(type: EmptyResponse.self)
/// ```
public struct EmptyResponse: Decodable, Sendable, Equatable {
    /// Creates the empty value.
    public init() {}
    /// Accepts whatever the decoder holds.
    public init(from decoder: any Decoder) throws {}
}
