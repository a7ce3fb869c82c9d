import Foundation

/// An explicit request body, for when `parameters` are not the right shape.
///
/// When an endpoint has a `body`, its `parameters` go to the URL query.
///
/// ```swift
/// var body: RequestBody? {
///     switch self {
///     case .create(let todo): .json(todo)                       // any Encodable, with the service's encoder
///     case .upload(let png): .data(png, contentType: "image/png")
///     case .login(let user, let password): .form(["user": user, "password": password])
///     default: nil
///     }
/// }
/// ```
public enum RequestBody: Sendable {
    /// Raw bytes with their content type.
    case data(Data, contentType: String)
    /// An `Encodable` value, encoded with the endpoint's `encoder` as `application/json`.
    case json(any Encodable & Sendable)
    /// Text fields, encoded as `application/x-www-form-urlencoded; charset=utf-8` with sorted keys.
    case form([String: String])
    /// Text fields and files as `multipart/form-data`.
    case multipart(MultipartFormData)

    /// The bytes and the `Content-Type` to send.
    func encoded(with encoder: JSONEncoder) throws(HTTPClientError) -> (data: Data, contentType: String) {
        switch self {
        case .data(let data, let contentType):
            return (data, contentType)
        case .json(let value):
            do {
                return (try encoder.encode(value), ContentType.json)
            } catch {
                throw .encodingFailed("the JSON body of type \(type(of: value)) could not be encoded: \(error)")
            }
        case .form(let fields):
            return (Data(URLEncodedForm(style: .default).encode(fields).utf8), ContentType.form)
        case .multipart(let form):
            return (try form.encode(), form.contentType)
        }
    }
}

/// The content types the library writes.
enum ContentType {
    static let json = "application/json"
    static let form = "application/x-www-form-urlencoded; charset=utf-8"
}
