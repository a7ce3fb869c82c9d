import Foundation

// What `print`, `String(describing:)`, `String(reflecting:)`, `dump` and debuggers show of the
// types that carry a request or a response. They end up in logs, crash reports and test failures,
// so they apply the library's default redaction (``Redaction/standard``): credential-looking header
// values and query values hidden, a URL's user name and password removed, bodies shown by size
// only (a body may hold a password under any key). The properties themselves are never redacted:
// `request.headers["Authorization"]` gives the value.

extension HeaderFields.Field: CustomStringConvertible, CustomReflectable {
    /// `Name: value`, with the value `<redacted>` when the name looks like a credential.
    ///
    /// ```swift
    /// let shown = HeaderFields.Field(name: "X-Api-Key", value: "k").description   // "X-Api-Key: <redacted>"
    /// ```
    public var description: String { "\(name): \(Redaction.standard.shownValue(of: self))" }

    /// What `dump` and debuggers show: the name and the value as ``description`` shows it.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": Redaction.standard.shownValue(of: self)], displayStyle: .struct)
    }
}

extension HeaderFields: CustomStringConvertible, CustomReflectable {
    /// The fields as `Name: value` lines, credential-looking values `<redacted>`.
    ///
    /// ```swift
    /// let headers: HeaderFields = ["Authorization": "Bearer t", "Accept": "application/json"]
    /// print(headers)   // Authorization: <redacted>
    ///                  // Accept: application/json
    /// ```
    public var description: String {
        fields.map(\.description).joined(separator: "\n")
    }

    /// What `dump` and debuggers show: the fields, each as ``Field/customMirror`` shows it.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: fields, displayStyle: .collection)
    }
}

extension OutgoingRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method and the URL: `GET https://api.example.com/me?api_key=<redacted>&page=2`.
    public var description: String {
        "\(method.rawValue) \(Redaction.standard.url(url))"
    }

    /// ``description``, then the headers as `Name: value` lines and the body's size.
    public var debugDescription: String {
        RedactedText.lines(description, headers: headers, body: RedactedText.summary(of: body))
    }

    /// What `dump` and debuggers show: method, URL and headers as ``debugDescription`` shows them,
    /// and the body's size.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "url": Redaction.standard.url(url), "headers": headers,
                "body": RedactedText.summary(of: body) as Any,
            ], displayStyle: .struct)
    }
}

extension ResponseHead: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status and the URL that answered: `200 https://api.example.com/me?page=2`.
    public var description: String {
        url.map { "\(statusCode) \(Redaction.standard.url($0))" } ?? String(statusCode)
    }

    /// ``description``, then the headers as `Name: value` lines.
    public var debugDescription: String {
        RedactedText.lines(description, headers: headers, body: nil)
    }

    /// What `dump` and debuggers show: status, headers and URL as ``debugDescription`` shows them.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["statusCode": statusCode, "headers": headers, "url": url.map(Redaction.standard.url) as Any],
            displayStyle: .struct)
    }
}

extension IncomingResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status, the URL that answered and the body's size: `200 https://api.example.com/me, 83 bytes`.
    public var description: String {
        "\(head.description), \(bodySummary)"
    }

    /// ``description``'s status and URL, then the headers as `Name: value` lines and the body's size.
    public var debugDescription: String {
        RedactedText.lines(head.description, headers: headers, body: bodySummary)
    }

    /// What `dump` and debuggers show: status, headers and URL as ``debugDescription`` shows them,
    /// the body's size, the download file and whether the body streams.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "statusCode": statusCode, "headers": headers, "url": url.map(Redaction.standard.url) as Any,
                "body": bodySummary, "bodyFile": bodyFile as Any, "isStreaming": isStreaming,
            ], displayStyle: .struct)
    }

    private var bodySummary: String {
        if let bodyFile { return "body in \(bodyFile.lastPathComponent)" }
        return isStreaming ? "streaming" : "\(body.count) bytes"
    }
}

extension EndpointResponse: CustomReflectable {
    /// What `print`, `dump` and debuggers show: the value, status, headers, URL and request as their
    /// own descriptions show them (credential-looking values `<redacted>`), and the raw body's size.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "value": value, "statusCode": statusCode, "headers": headers, "data": "\(data.count) bytes",
                "request": request, "url": url.map(Redaction.standard.url) as Any,
            ], displayStyle: .struct)
    }
}

extension HTTPClientError: CustomReflectable {
    /// What `dump` and debuggers show: the case and what it carries, a response as
    /// ``EndpointResponse/customMirror`` shows it and a `URLError` by its code only (its user info
    /// may hold the failing URL with its query).
    public var customMirror: Mirror {
        let payload: Any? =
            switch self {
            case .badURL(let text), .invalidHeader(let text), .encodingFailed(let text), .authorizationFailed(let text): text
            case .invalidPathSegment(let position, let reason): (position: position, reason: reason)
            case .delimiterInEndpoint(let character): character
            case .transport(let error): "URLError(\(error.code.rawValue))"
            case .timedOut, .cancelled, .invalidResponse: nil
            case .unacceptableStatusCode(let response): response
            case .decodingFailed(let response, let reason): (response: response, reason: reason)
            case .responseTooLarge(let limit): limit
            case .proxyRefused(let statusCode, let proxy): (statusCode: statusCode, proxy: proxy)
            }
        let name = String(caseName.prefix { $0 != "(" })
        guard let payload else { return Mirror(self, children: [:], displayStyle: .enum) }
        return Mirror(self, children: [name: payload], displayStyle: .enum)
    }
}

/// The text parts the descriptions above share.
private enum RedactedText {
    /// A request body by size, never by content; `nil` for none.
    static func summary(of body: OutgoingRequest.Body?) -> String? {
        switch body {
        case .data(let data): "\(data.count) bytes"
        case .file(let file): "file \(file.lastPathComponent)"
        case nil: nil
        }
    }

    /// `first`, the header lines, and `(body: …)`, one per line.
    static func lines(_ first: String, headers: HeaderFields, body: String?) -> String {
        var lines = [first]
        lines += headers.fields.map(\.description)
        if let body { lines.append("(body: \(body))") }
        return lines.joined(separator: "\n")
    }
}
