/// Settings an endpoint declares for the middlewares that handle its calls, handed to them in
/// ``CallContext/options``.
///
/// Built-in middlewares read their own options (``retryable``, ``deduplicate``, …); a middleware of
/// yours declares a key:
///
/// ```swift
/// enum Priority: EndpointOptionKey { static let defaultValue = 0 }
/// extension EndpointOptions {
///     var priority: Int {
///         get { self[Priority.self] }
///         set { self[Priority.self] = newValue }
///     }
/// }
///
/// enum FeedAPI: HTTPClient, Equatable {
///     case timeline, post(Post)
///     var host: String { "https://api.example.com" }
///     var endpoint: String { self == .timeline ? "timeline" : "posts" }
///     var options: EndpointOptions {
///         var options = EndpointOptions()
///         options.priority = self == .timeline ? 1 : 0
///         return options
///     }
/// }
/// ```
public struct EndpointOptions: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// Options with every key at its default value.
    public init() {}

    /// The value set for `key`, or its ``EndpointOptionKey/defaultValue``.
    public subscript<Key: EndpointOptionKey>(key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)].flatMap { $0 as? Key.Value } ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}

/// The type that names one option of ``EndpointOptions`` and gives its default.
public protocol EndpointOptionKey {
    /// The option's type.
    associatedtype Value: Sendable
    /// The value an endpoint that says nothing has.
    static var defaultValue: Value { get }
}
