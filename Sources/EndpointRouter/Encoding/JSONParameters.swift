import Foundation

/// Writes an `[String: Any]` dictionary as JSON.
///
/// Written by hand rather than with `JSONSerialization`, which traps (on Apple platforms) on a value
/// JSON cannot carry, such as a `Date`; here such a value is a typed `.encodingFailed` naming the key.
/// Keys are sorted, so the same parameters always give the same bytes.
enum JSONParameters {
    static func encode(_ parameters: [String: Any]) throws(HTTPClientError) -> Data {
        var output = ""
        try write(parameters, path: "", to: &output)
        return Data(output.utf8)
    }

    private static func write(_ value: Any, path: String, to output: inout String) throws(HTTPClientError) {
        if let scalar = ParameterValue.commonScalar(value) {
            try write(scalar, of: value, path: path, to: &output)
            return
        }
        guard let value = ParameterValue.unwrap(value) else {
            output += "null"
            return
        }
        if let dictionary = value as? [String: Any] {
            output += "{"
            for (offset, key) in dictionary.keys.sorted().enumerated() {
                if offset > 0 { output += "," }
                writeString(key, to: &output)
                output += ":"
                try write(dictionary[key] as Any, path: path.isEmpty ? key : "\(path).\(key)", to: &output)
            }
            output += "}"
        } else if let array = value as? [Any] {
            output += "["
            for (index, element) in array.enumerated() {
                if index > 0 { output += "," }
                try write(element, path: "\(path)[\(index)]", to: &output)
            }
            output += "]"
        } else {
            try write(ParameterValue.scalar(value), of: value, path: path, to: &output)
        }
    }

    private static func write(
        _ scalar: ParameterValue.Scalar?, of value: Any, path: String, to output: inout String
    ) throws(HTTPClientError) {
        switch scalar {
        case .string(let string):
            writeString(string, to: &output)
        case .bool(let bool):
            output += bool ? "true" : "false"
        case .number(let text, let isFinite):
            guard isFinite else {
                throw .encodingFailed("parameter '\(path)' is \(text), which JSON cannot carry; send a finite number or null")
            }
            output += text
        case .null:
            output += "null"
        case nil:
            throw .encodingFailed(
                """
                parameter '\(path)' holds a \(ParameterValue.typeName(value)), which JSON cannot carry; \
                convert it first (a Date to an ISO 8601 String, say) or send an Encodable `body` instead
                """)
        }
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
