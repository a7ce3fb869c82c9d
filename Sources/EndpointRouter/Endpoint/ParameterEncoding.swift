/// Where an endpoint's `parameters` go.
///
/// ```swift
/// var parameterEncoding: ParameterEncoding { .form }   // a login form, say
/// ```
public enum ParameterEncoding: Sendable, Hashable {
    /// The URL query for GET, HEAD, DELETE, OPTIONS and TRACE; a JSON body for the other methods.
    case automatic
    /// Always the URL query.
    case query
    /// Always a JSON body (`application/json`).
    case json
    /// Always a form body (`application/x-www-form-urlencoded; charset=utf-8`).
    case form
}

/// How arrays and booleans are written into a query string or form body.
///
/// Servers disagree on these, so each service picks its style:
///
/// ```swift
/// var queryStyle: QueryStyle { QueryStyle(arrays: .repeatedKey, bools: .numeric) }
/// // ["id": [1, 2], "open": true]  →  id=1&id=2&open=1
/// ```
public struct QueryStyle: Sendable, Hashable {
    /// How an array value is written.
    public enum ArrayStyle: Sendable, Hashable {
        /// `key[]=a&key[]=b` (Rails, PHP; the default).
        case brackets
        /// `key=a&key=b` (most Go, Java and Python servers).
        case repeatedKey
        /// `key=a,b`; commas inside an element are escaped, so they stay distinguishable.
        case commaSeparated
    }

    /// How a `Bool` value is written.
    public enum BoolStyle: Sendable, Hashable {
        /// `true` / `false` (the default).
        case literal
        /// `1` / `0`.
        case numeric
    }

    /// How arrays are written.
    public var arrays: ArrayStyle
    /// How booleans are written.
    public var bools: BoolStyle

    /// Creates a style; the defaults are brackets and literal booleans.
    public init(arrays: ArrayStyle = .brackets, bools: BoolStyle = .literal) {
        self.arrays = arrays
        self.bools = bools
    }

    /// Brackets for arrays, `true`/`false` for booleans.
    public static let `default` = QueryStyle()
}
