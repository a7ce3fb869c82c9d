import Foundation

/// An explicit request body, for when `parameters` are not the right shape.
///
/// When an endpoint has a `body`, its `parameters` go to the URL query.
///
/// <!-- snippet: prelude=doc,models,api-members -->
/// ```swift
/// var body: EndpointBody? {
///     switch self {
///     case .create(let todo): .json(todo)                       // any Encodable, with the service's encoder
///     case .upload(let png): .data(png, contentType: "image/png")
///     case .login(let user, let password): .form(["user": user, "password": password])
///     default: nil
///     }
/// }
/// ```
public enum EndpointBody: Sendable {
    /// Raw bytes with their content type.
    case data(Data, contentType: String)
    /// An `Encodable` value, encoded with the endpoint's `encoder` as `application/json`.
    case json(any Encodable & Sendable)
    /// Text fields, encoded as `application/x-www-form-urlencoded; charset=utf-8` with sorted keys.
    case form([String: String])
    /// Text fields and files as `multipart/form-data`.
    case multipart(MultipartFormData)
    /// The contents of a file, streamed from disk while sending (never read whole into memory).
    ///
    /// ```swift
    /// var body: EndpointBody? {
    ///     if case .upload(let video) = self { .file(video, contentType: "video/mp4") } else { nil }
    /// }
    /// ```
    ///
    /// Ask for upload progress with ``HTTPClient/response(type:at:timeout:headers:middlewares:uploadProgress:)`` (`uploadProgress`).
    case file(URL, contentType: String)

    /// The body to send and its `Content-Type`.
    func encoded(with encoder: JSONEncoder) throws(HTTPClientError) -> (body: OutgoingRequest.Body, contentType: String) {
        switch self {
        case .data(let data, let contentType): return (.data(data), contentType)
        case .json(let value):
            do {
                return (.data(try encoder.encode(value)), ContentType.json)
            } catch {
                throw .encodingFailed("the JSON body of type \(type(of: value)) could not be encoded: \(error)")
            }
        case .form(let fields): return (.data(Data(URLEncodedForm(style: .default).encode(fields).utf8)), ContentType.form)
        case .multipart(let form): return (.data(try form.encode()), form.contentType)
        case .file(let url, let contentType): return (.file(url), contentType)
        }
    }
}
