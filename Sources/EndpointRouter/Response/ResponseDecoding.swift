import Foundation

/// Turns what a transport received into the caller's typed result: status validation, then decoding.
enum ResponseDecoding {
    static func decode<T: Decodable>(
        _ type: T.Type,
        from received: IncomingResponse,
        request: OutgoingRequest,
        acceptableStatusCodes: any StatusCodeSet,
        decoder: JSONDecoder,
        keyPath: String? = nil
    ) -> Result<EndpointResponse<T>, HTTPClientError> {
        let raw = EndpointResponse(
            value: received.body, statusCode: received.statusCode, headers: received.headers,
            data: received.body, request: request, url: received.url ?? request.url)
        guard acceptableStatusCodes.contains(received.statusCode) else {
            return .failure(.unacceptableStatusCode(raw))
        }
        if let keyPath {
            return decode(type, at: keyPath, raw: raw, decoder: decoder)
        }
        // Data, String and EmptyResponse are answered without a decoder, so raw bodies, text and
        // bodiless responses (204, HEAD) never fail as "not valid JSON". Recognised by their type
        // before any cast: the two casts to a generic `T` cost about 430 instructions a call for the
        // usual model type, which is none of these. The type or its `Optional`: the ones a caller
        // names.
        if T.self == Data.self || T.self == Data?.self, let value = received.body as? T {
            return .success(raw.map { _ in value })
        }
        if T.self == String.self {
            guard let text = String(data: received.body, encoding: .utf8), let value = text as? T else {
                return .failure(.decodingFailed(raw, "the body is not valid UTF-8 text"))
            }
            return .success(raw.map { _ in value })
        }
        if T.self == EmptyResponse.self || T.self == EmptyResponse?.self, let value = EmptyResponse() as? T {
            return .success(raw.map { _ in value })
        }
        do {
            let value = try decoder.decode(T.self, from: received.body)
            return .success(raw.map { _ in value })
        } catch {
            return .failure(.decodingFailed(raw, DecodingFailure.describe(error, type: T.self, body: received.body)))
        }
    }

    /// Decodes the value under `keyPath` (keys joined by dots) with `decoder`; `Data`, `String` and
    /// ``EmptyResponse`` get no special treatment there, since the value is a part of a JSON document.
    private static func decode<T: Decodable>(
        _ type: T.Type, at keyPath: String, raw: EndpointResponse<Data>,
        decoder: JSONDecoder
    ) -> Result<EndpointResponse<T>, HTTPClientError> {
        guard let keys = NestedValueKeys.parse(keyPath) else {
            return .failure(
                .decodingFailed(raw, "the key path '\(keyPath)' has an empty key; write keys joined by dots, such as \"data.items\""))
        }
        do {
            let value = try NestedValueKeys.$keys.withValue(keys) {
                try decoder.decode(NestedValue<T>.self, from: raw.data).value
            }
            return .success(raw.map { _ in value })
        } catch {
            return .failure(.decodingFailed(raw, DecodingFailure.describe(error, type: T.self, body: raw.data)))
        }
    }
}

/// Writes a `DecodingError` as one sentence with the coding path, so the failing field is obvious.
enum DecodingFailure {
    /// - Parameter quotingDecoder: whether the decoder's own descriptions follow the path; they can
    ///   quote the input, so a stream's lines (anyone's data, and error texts end up in logs) leave
    ///   them out.
    static func describe(_ error: any Error, type: Any.Type, body: Data, quotingDecoder: Bool = true) -> String {
        if body.isEmpty {
            return "expected \(type) but the response body is empty; request EmptyResponse if no body is expected"
        }
        guard let decodingError = error as? DecodingError else {
            return quotingDecoder ? "\(error)" : "it could not be decoded"
        }
        func detail(_ context: DecodingError.Context) -> String {
            guard quotingDecoder else { return "" }
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "; \(context.debugDescription)\(underlying)"
        }
        switch decodingError {
        case .typeMismatch(let expected, let context):
            return "type mismatch at \(path(context.codingPath)): expected \(expected)\(detail(context))"
        case .valueNotFound(let expected, let context):
            return "missing value at \(path(context.codingPath)): expected \(expected)\(detail(context))"
        case .keyNotFound(let key, let context):
            let name = isDeclared(key) ? "key '\(key.stringValue)'" : "a key"
            return "missing \(name) at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "invalid data at \(path(context.codingPath))\(detail(context))"
        @unknown default:
            return quotingDecoder ? "\(decodingError)" : "it could not be decoded"
        }
    }

    /// The coding path as `'items[2].name'`. A key the decoded type declares (a case of its
    /// `CodingKeys`) is written by name and an array position by number; any other key — a
    /// dictionary's (`[String: Int]`), or one a custom `init(from:)` made up — is data from the body,
    /// possibly a secret (`{"sk_live_…": 1}`), and is written `[<key>]`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else if isDeclared(key) {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            } else {
                text += "[<key>]"
            }
        }
        return "'\(text)'"
    }

    /// Whether `key` is a name written in code: a case without a payload of an enum (what Swift
    /// synthesizes as `CodingKeys`, and how hand-written keys are declared), or a key of the library's
    /// own that says so (``NamedInCode``: the keys of `request(type:at:)`'s key path). Foundation's keys for
    /// dictionary entries and array positions are structs or carry their value as a payload.
    static func isDeclared(_ key: any CodingKey) -> Bool {
        if key is any NamedInCode { return true }
        let mirror = Mirror(reflecting: key)
        return mirror.displayStyle == .enum && mirror.children.isEmpty
    }
}

/// A coding key the library makes from a name the caller wrote in code (a key path's keys), which a
/// decoding error may show; every other key that is not an enum case is treated as data.
protocol NamedInCode {}
