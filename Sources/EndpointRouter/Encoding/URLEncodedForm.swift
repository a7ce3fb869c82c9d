import Foundation

/// Writes parameters as `application/x-www-form-urlencoded` pairs, the format of both URL queries
/// and form bodies.
///
/// Keys are sorted so the same parameters always give the same bytes; every character of a key or
/// value outside RFC 3986's unreserved set is percent-encoded (`+` as `%2B`, space as `%20`), so any
/// string reaches the server exactly as it was.
struct URLEncodedForm {
    var style: QueryStyle

    /// `a=1&b%5B%5D=x&b%5B%5D=y`, or `""` for no parameters.
    func encode(_ parameters: [String: Any]) throws(HTTPClientError) -> String {
        var pairs: [String] = []
        for key in parameters.keys.sorted() {
            guard let value = parameters[key] else { continue }
            try append(value, name: PercentEncoding.encodeComponent(key), path: key, to: &pairs)
        }
        return pairs.joined(separator: "&")
    }

    /// Pairs of already-decoded strings (the `.form` body case), sorted by key.
    func encode(_ fields: [String: String]) -> String {
        fields.keys.sorted().map { key in
            PercentEncoding.encodeComponent(key) + "=" + PercentEncoding.encodeComponent(fields[key] ?? "")
        }.joined(separator: "&")
    }

    private func append(_ value: Any, name: String, path: String, to pairs: inout [String]) throws(HTTPClientError) {
        if let scalar = ParameterValue.commonScalar(value) {
            pairs.append(name + "=" + PercentEncoding.encodeComponent(text(scalar)))
            return
        }
        guard let value = ParameterValue.unwrap(value) else { return }
        if let dictionary = value as? [String: Any] {
            for key in dictionary.keys.sorted() {
                guard let child = dictionary[key] else { continue }
                try append(
                    child, name: name + "%5B" + PercentEncoding.encodeComponent(key) + "%5D",
                    path: "\(path)[\(key)]", to: &pairs)
            }
        } else if let array = value as? [Any] {
            try append(array, name: name, path: path, to: &pairs)
        } else if let scalar = ParameterValue.scalar(value) {
            pairs.append(name + "=" + PercentEncoding.encodeComponent(text(scalar)))
        } else {
            throw .encodingFailed(
                """
                parameter '\(path)' holds a \(ParameterValue.typeName(value)), which cannot be written into \
                a query or form; pass a String, number, Bool, array or dictionary instead
                """)
        }
    }

    private func append(_ array: [Any], name: String, path: String, to pairs: inout [String]) throws(HTTPClientError) {
        switch style.arrays {
        case .brackets:
            for element in array {
                try append(element, name: name + "%5B%5D", path: "\(path)[]", to: &pairs)
            }
        case .repeatedKey:
            for element in array {
                try append(element, name: name, path: path, to: &pairs)
            }
        case .commaSeparated:
            var parts: [String] = []
            for element in array {
                if let scalar = ParameterValue.commonScalar(element) {
                    parts.append(PercentEncoding.encodeComponent(text(scalar)))
                    continue
                }
                guard let unwrapped = ParameterValue.unwrap(element) else { continue }
                guard let scalar = ParameterValue.scalar(unwrapped) else {
                    throw .encodingFailed(
                        """
                        parameter '\(path)' holds a \(ParameterValue.typeName(unwrapped)) inside a \
                        comma-separated array; such arrays can only hold strings, numbers and booleans
                        """)
                }
                parts.append(PercentEncoding.encodeComponent(text(scalar)))
            }
            if !parts.isEmpty { pairs.append(name + "=" + parts.joined(separator: ",")) }
        }
    }

    private func text(_ scalar: ParameterValue.Scalar) -> String {
        switch scalar {
        case .string(let string): string
        case .bool(let bool): style.bools == .literal ? (bool ? "true" : "false") : (bool ? "1" : "0")
        case .number(let text, _): text
        case .null: ""
        }
    }
}
