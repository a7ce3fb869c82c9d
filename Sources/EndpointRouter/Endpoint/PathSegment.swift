import Foundation

/// The escaping behind `\(segment:)`: see that interpolation for the rules.
func pathSegment(_ value: String) -> String {
    let encoded = PercentEncoding.encodeComponent(value)
    guard let problem = PathSegmentProblem.of(value) else { return encoded }
    return RefusedPathSegment.marker(for: problem, encodedValue: encoded)
}

/// Why a value interpolated with `\(segment:)` cannot be sent as a path segment; carried by
/// ``HTTPClientError/invalidPathSegment(position:reason:)``.
///
/// ```swift
/// if case .failure(.invalidPathSegment(let position, .empty)) = result {
///     print("path segment \(position) is empty; ask the user for an id")
/// }
/// ```
public enum PathSegmentProblem: String, Sendable, Hashable, CaseIterable {
    /// The value is empty: `users/\(segment: "")/posts` would address `users//posts`, which servers
    /// merge into `users/posts`.
    case empty
    /// The value is `.` or `..`, or contains a `/`- or `\`-separated part that is one after
    /// percent-decoding: a normalising server or gateway would move up the path with it.
    case dotSegment

    /// The problem `value` has as one path segment, or `nil` when it can be sent.
    ///
    /// Works on Unicode scalars, not `Character`s: a combining mark after `/` (`"../\u{301}x"`)
    /// makes one `Character` of the two, yet a server decoding `%2F` still sees the `/`.
    static func of(_ value: String) -> PathSegmentProblem? {
        if value.isEmpty { return .empty }
        var text = value
        // Decoding until nothing changes also catches values encoded twice (`%252e%252e`), which a
        // gateway that decodes and a server that decodes again would turn into `..`.
        while true {
            let parts = text.unicodeScalars.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
            if parts.contains(where: isDotSegment) { return .dotSegment }
            let decoded = PercentEncoding.decodeLeniently(text)
            guard !decoded.utf8.elementsEqual(text.utf8) else { return nil }
            text = decoded
        }
    }

    private static func isDotSegment(_ part: Substring.UnicodeScalarView) -> Bool {
        // Tomcat and other servlet containers drop a `;parameter` before resolving `..;x`.
        let name = part.prefix { $0 != ";" }
        // Compatibility mapping never drops a scalar and composes at most pairs, so a longer part
        // cannot become one or two dots; the bound keeps the mapping off long values.
        guard !name.isEmpty, name.count <= 8 else { return false }
        if name.allSatisfy({ $0 == "." }) && name.count <= 2 { return true }
        // Servers that apply Unicode compatibility mapping read `．` (U+FF0E), `․` (U+2024) or `‥`
        // (U+2025) as dots; IDNA-minded parsers also read `。` (U+3002) and `｡` (U+FF61) as one.
        let mapped = String(String.UnicodeScalarView(name)).precomposedStringWithCompatibilityMapping.unicodeScalars
            .map { $0 == "\u{3002}" || $0 == "\u{FF61}" ? "." : $0 }
        return (mapped.count == 1 || mapped.count == 2) && mapped.allSatisfy { $0 == "." }
    }
}

/// The text `\(segment:)` interpolates for a value it refuses, and how request building finds it.
///
/// The text is the value's percent-encoding between two Unicode noncharacters (U+FDD0, U+FDD1),
/// which Unicode reserves for a program's internal use and which no encoded segment or sensible
/// endpoint contains. In a path it fails the request; in a query (`"search\(query: "q=\(segment: q)")"`), where
/// dots and empty values are harmless, it stands for the encoded value. Everything here works on
/// Unicode scalars: next to a combining or prepended character, a marker would not be a `Character`
/// of its own.
enum RefusedPathSegment {
    // Swift refuses noncharacters in literals, so they are built from their code points; the
    // private-use fallbacks are never taken (both code points are valid scalars).
    static let start = Unicode.Scalar(UInt32(0xFDD0)) ?? "\u{E000}"
    static let end = Unicode.Scalar(UInt32(0xFDD1)) ?? "\u{E001}"

    static func marker(for problem: PathSegmentProblem, encodedValue: String) -> String {
        var text = String.UnicodeScalarView()
        text.append(start)
        text.append(contentsOf: "\(problem.rawValue):\(encodedValue)".unicodeScalars)
        text.append(end)
        return String(text)
    }

    static func contains(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(start)
    }

    /// The problem of the first refused value in `text`, if any.
    static func firstProblem(in text: some StringProtocol) -> PathSegmentProblem? {
        let scalars = text.unicodeScalars
        guard let startIndex = scalars.firstIndex(of: start) else { return nil }
        let name = scalars[scalars.index(after: startIndex)...].prefix { $0 != ":" && $0 != end }
        return PathSegmentProblem(rawValue: String(String.UnicodeScalarView(name))) ?? .dotSegment
    }

    /// `text` with every marker replaced by the encoded value it carries.
    static func unwrapped(_ text: String) -> String {
        guard contains(text) else { return text }
        var output = String.UnicodeScalarView()
        var inMarker = false
        var inValue = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case start:
                inMarker = true
                inValue = false
            case end: inMarker = false
            case ":" where inMarker && !inValue: inValue = true
            default: if !inMarker || inValue { output.append(scalar) }
            }
        }
        return String(output)
    }
}

extension DefaultStringInterpolation {
    /// Escapes one interpolated value as a single path segment.
    ///
    /// Everything but letters, digits and `-._~` is percent-encoded, including `/`, `\`, `?`, `#` and
    /// `%`, so a user-supplied value can neither add a segment nor start a query:
    ///
    /// ```swift
    /// var endpoint: String {
    ///     switch self {
    ///     case .user(let name): "users/\(segment: name)"      // "ann?x#y" → "users/ann%3Fx%23y"
    ///     default: "users"
    ///     }
    /// }
    /// ```
    ///
    /// Some values cannot be sent as a segment safely, because a server or gateway that decodes
    /// `%2F` and `%2E` and then resolves dot segments (nginx, Python's `http.server`, any RFC 3986
    /// normaliser) would walk the path with them, and an empty segment addresses the parent
    /// (`users/` instead of `users/42`):
    /// - an empty value;
    /// - a value that is `.` or `..`, or has a part between `/` or `\` that is one, once
    ///   percent-decoded (`../admin`, `%2e%2e`, `a/./b`), with a Tomcat-style `;parameter` removed or
    ///   after Unicode compatibility mapping (`．．`, `‥`).
    ///
    /// Such a value is not encoded into something a server might still resolve: the request is refused.
    /// Because string interpolation cannot throw, the interpolated text carries the refusal, and
    /// ``HTTPClient/makeRequest()`` (and so every request) fails with
    /// ``HTTPClientError/invalidPathSegment(position:reason:)``, naming the segment's position in the
    /// URL path and never the value, which may be secret. Use it only inside an endpoint's
    /// `endpoint` or `path`.
    public mutating func appendInterpolation(segment value: String) {
        appendLiteral(pathSegment(value))
    }

    /// Interpolates a number or other value escaped as one path segment, by the rules of
    /// `appendInterpolation(segment:)` for its `description`.
    ///
    /// An `NSNumber` (every number `JSONSerialization` hands over) is written as `parameters` write
    /// it: a boolean one as `true` or `false`, like a `Bool`, not as the `1` or `0` of its
    /// `description`.
    public mutating func appendInterpolation<Value: CustomStringConvertible>(segment value: Value) {
        // The type first: a cast of a value may bridge (an `Int` to `NSNumber` on Apple platforms)
        // and costs a runtime call on every interpolation.
        if Value.self is NSNumber.Type, let number = value as? NSNumber {
            appendLiteral(pathSegment(ParameterValue.segmentText(of: number)))
        } else {
            appendLiteral(pathSegment(value.description))
        }
    }
}
