// The service of the testing guide's "A whole client" section (after `models`), as the guide shows it.
struct Token: Codable, Sendable { var value: String }
struct Order: Codable, Sendable, Equatable { var id: Int }

enum ShopAPI: HTTPClient {
    case orders, upload(Data), live, renewToken

    static let credentials = CredentialStore(
        credential: { .bearer("stored") },   // the Keychain, in the app
        refresh: { _ in
            guard let token = try? await ShopAPI.renewToken.request(type: Token.self).get() else { return .loggedOut }
            return .refreshed(.bearer(token.value))
        })

    var host: String { "https://shop.example.com" }
    var endpoint: String {
        switch self {
        case .orders, .upload: "orders"
        case .live: "live"
        case .renewToken: "token"
        }
    }
    var method: RequestMethod {
        switch self {
        case .upload, .renewToken: .post
        case .orders, .live: .get
        }
    }
    var body: EndpointBody? { if case .upload(let data) = self { .data(data, contentType: "text/csv") } else { nil } }
    var middlewares: [any HTTPMiddleware] {
        if case .renewToken = self { return [] }
        return [AuthorizationMiddleware(Self.credentials, host: host), RetryMiddleware()]
    }
}
