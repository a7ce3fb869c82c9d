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
        var output = ""
        // Room for short pairs up front, so that the string does not grow from inline storage
        // through two or three reallocations.
        output.reserveCapacity(parameters.count * 16)
        // Sorting the pairs rather than the keys spares a hash lookup per key.
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            try append(value, name: PercentEncoding.encodeComponent(key), path: key, to: &output)
        }
        return output
    }

    /// Pairs of already-decoded strings (the `.form` body case), sorted by key.
    func encode(_ fields: [String: String]) -> String {
        var output = ""
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            Self.appendPair(name: PercentEncoding.encodeComponent(key), value: PercentEncoding.encodeComponent(value), to: &output)
        }
        return output
    }

    /// Appends `name=value` (both percent-encoded already) with its `&` separator: every pair holds
    /// an `=`, so a non-empty output always ends with a pair.
    private static func appendPair(name: String, value: String, to output: inout String) {
        if !output.isEmpty { output += "&" }
        output += name
        output += "="
        output += value
    }

    private func append(_ value: Any, name: String, path: String, to output: inout String) throws(HTTPClientError) {
        if let scalar = ParameterValue.commonScalar(value) {
            Self.appendPair(name: name, value: PercentEncoding.encodeComponent(text(scalar)), to: &output)
            return
        }
        guard let value = ParameterValue.unwrap(value) else { return }
        if let dictionary = value as? [String: Any] {
            for (key, child) in dictionary.sorted(by: { $0.key < $1.key }) {
                try append(
                    child, name: name + "%5B" + PercentEncoding.encodeComponent(key) + "%5D",
                    path: "\(path)[\(key)]", to: &output)
            }
        } else if let array = value as? [Any] {
            try append(array, name: name, path: path, to: &output)
        } else if let scalar = ParameterValue.scalar(value) {
            Self.appendPair(name: name, value: PercentEncoding.encodeComponent(text(scalar)), to: &output)
        } else {
            throw .encodingFailed(
                """
                parameter '\(path)' holds a \(ParameterValue.typeName(value)), which cannot be written into \
                a query or form; pass a String, number, Bool, array or dictionary instead
                """)
        }
    }

    private func append(_ array: [Any], name: String, path: String, to output: inout String) throws(HTTPClientError) {
        switch style.arrays {
        case .brackets, .repeatedKey:
            let (elementName, elementPath) = style.arrays == .brackets ? (name + "%5B%5D", "\(path)[]") : (name, path)
            for element in array {
                try append(element, name: elementName, path: elementPath, to: &output)
            }
        case .commaSeparated:
            var joined = ""
            var isFirst = true
            for element in array {
                let scalar: ParameterValue.Scalar
                if let common = ParameterValue.commonScalar(element) {
                    scalar = common
                } else {
                    guard let unwrapped = ParameterValue.unwrap(element) else { continue }
                    guard let general = ParameterValue.scalar(unwrapped) else {
                        throw .encodingFailed(
                            """
                            parameter '\(path)' holds a \(ParameterValue.typeName(unwrapped)) inside a \
                            comma-separated array; such arrays can only hold strings, numbers and booleans
                            """)
                    }
                    scalar = general
                }
                if !isFirst { joined += "," }
                isFirst = false
                joined += PercentEncoding.encodeComponent(text(scalar))
            }
            if !isFirst { Self.appendPair(name: name, value: joined, to: &output) }
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
