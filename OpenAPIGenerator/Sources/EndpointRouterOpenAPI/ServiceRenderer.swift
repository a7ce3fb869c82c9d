/// Writes the service enum, its typed front door, servers and security as Swift.
struct ServiceRenderer {
    let api: String
    let frontDoor: String
    let access: String
    let operations: [Operation]
    /// Whether operation descriptions become doc comments (the summary line always does).
    var includeDocumentation = true

    private func pattern(_ operation: Operation, binding wanted: Set<String>) -> String {
        let values = operation.associatedValues
        let name = SwiftNames.escaped(operation.caseName)
        guard !values.isEmpty else { return ".\(name)" }
        guard values.contains(where: { wanted.contains($0.label) }) else { return ".\(name)" }
        return ".\(name)(" + values.map { wanted.contains($0.label) ? "let \(SwiftNames.escaped($0.label))" : "_" }.joined(separator: ", ")
            + ")"
    }

    private func code(_ type: SwiftTypeReference) -> String { type.code(service: api) }

    /// Above this many cases the compiler gives up proving a switch exhaustive ("unable to check
    /// that this switch is exhaustive in reasonable time"), so the last clause becomes `default`.
    private var lastClauseIsDefault: Bool { operations.count > 100 }

    private func clause(_ patterns: [String], isLast: Bool) -> String {
        isLast && lastClauseIsDefault ? "default" : "case " + patterns.joined(separator: ", ")
    }

    func renderEnum(title: String) -> String {
        var text =
            "/// \(title): one case per operation; `request(type:)` works on every case, \(frontDoor) gives each its documented type.\n"
        text += "\(access)enum \(api): EndpointRouter.HTTPClient, Sendable, Hashable {\n"
        for operation in operations {
            text += "    /// \(operation.summary.map { $0 + " " } ?? "")`\(operation.method.uppercased()) \(operation.path)`\n"
            if includeDocumentation, let description = operation.description {
                text +=
                    "    ///\n"
                    + description.split(separator: "\n", omittingEmptySubsequences: false).map {
                        $0.isEmpty ? "    ///\n" : "    /// \($0)\n"
                    }.joined()
            }
            text += deprecation(operation)
            text += "    case \(SwiftNames.escaped(operation.caseName))\(declarationParameters(operation))\n"
        }
        text += "\n    \(access)var host: String { \(api).activeConfiguration.server }\n"
        text += endpointProperty()
        text += methodProperty()
        text += "    \(access)var parameterEncoding: EndpointRouter.ParameterEncoding { .query }\n"
        text += parametersProperty()
        text += queryStyleProperty()
        text += headersProperty()
        text += bodyProperty()
        text += statusProperty()
        text += "    \(access)var decoder: JSONDecoder { \(api).jsonDecoder }\n"
        text += "    \(access)var encoder: JSONEncoder { \(api).jsonEncoder }\n"
        let authorized = operations.filter(\.requiresAuthorization)
        if authorized.isEmpty {
            text +=
                "    \(access)var middlewares: [any EndpointRouter.HTTPMiddleware] { \(api).activeConfiguration.middlewares(host: host, authorized: false) }\n"
        } else if authorized.count == operations.count {
            text +=
                "    \(access)var middlewares: [any EndpointRouter.HTTPMiddleware] { \(api).activeConfiguration.middlewares(host: host, authorized: true) }\n"
        } else {
            text += "    \(access)var middlewares: [any EndpointRouter.HTTPMiddleware] {\n"
            text += "        switch self {\n"
            text +=
                "        case \(operations.filter { !$0.requiresAuthorization }.map { ".\(SwiftNames.escaped($0.caseName))" }.joined(separator: ", ")): \(api).activeConfiguration.middlewares(host: host, authorized: false)\n"
            text += "        default: \(api).activeConfiguration.middlewares(host: host, authorized: true)\n        }\n    }\n"
        }
        return text + "}\n"
    }

    /// `deprecated: true` as the attribute the compiler reports at every use.
    private func deprecation(_ operation: Operation) -> String {
        operation.isDeprecated ? "    @available(*, deprecated, message: \"deprecated in the API's OpenAPI document\")\n" : ""
    }

    private func declarationParameters(_ operation: Operation) -> String {
        var parts: [String] = []
        for parameter in operation.orderedParameters {
            let type = code(parameter.type) + (parameter.isOptional ? "? = nil" : "")
            parts.append("\(parameter.label): \(type)")
        }
        if let body = operation.body {
            parts.append("_ body: \(code(body.type))\(body.isOptional ? "? = nil" : "")")
        }
        return parts.isEmpty ? "" : "(" + parts.joined(separator: ", ") + ")"
    }

    /// Each clause `return`s: a switch *expression* whose 400 branches are string interpolations is
    /// type-checked as one constraint system (40 s for GitHub's document), statements one by one.
    private func endpointProperty() -> String {
        var text = "    \(access)var endpoint: String {\n        switch self {\n"
        var grouped: [(String, [String])] = []
        for operation in operations {
            let (literal, names) = endpointLiteral(operation)
            if names.isEmpty, let index = grouped.firstIndex(where: { $0.0 == literal }) {
                grouped[index].1.append(".\(SwiftNames.escaped(operation.caseName))")
            } else if names.isEmpty {
                grouped.append((literal, [".\(SwiftNames.escaped(operation.caseName))"]))
            } else {
                grouped.append((literal, [pattern(operation, binding: names)]))
            }
        }
        for (index, (literal, patterns)) in grouped.enumerated() {
            text += "        \(clause(patterns, isLast: index == grouped.count - 1)): return \(literal)\n"
        }
        if operations.isEmpty { text += "        }\n" } else { text += "        }\n" }
        return text + "    }\n"
    }

    /// The path as a Swift string literal with every parameter through `\(segment:)`, and a query
    /// the path writes (`/items?kind=x`) through `\(query:)`: EndpointRouter refuses any other `?`
    /// in an endpoint (`HTTPClientError.delimiterInEndpoint`), since a `?` in a value would
    /// otherwise cut the path silently.
    private func endpointLiteral(_ operation: Operation) -> (String, Set<String>) {
        var path = Substring(operation.path)
        while path.hasPrefix("/") { path = path.dropFirst() }
        // A fragment is never sent; the document means the path before it.
        if let hash = path.firstIndex(of: "#") { path = path[..<hash] }
        var names: Set<String> = []
        guard let question = path.firstIndex(of: "?") else {
            return ("\"" + templateLiteral(path, operation, &names) + "\"", names)
        }
        var literal = templateLiteral(path[..<question], operation, &names)
        let query = path[path.index(after: question)...]
        if !query.isEmpty {
            literal += "\\(query: \"" + templateLiteral(query, operation, &names) + "\")"
        }
        return ("\"" + literal + "\"", names)
    }

    /// The text of a path template inside a string literal: literal text escaped, each `{name}`
    /// that is a path parameter through `\(segment:)`.
    private func templateLiteral(_ template: Substring, _ operation: Operation, _ names: inout Set<String>) -> String {
        var literal = ""
        var rest = template
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            literal += escapeLiteral(String(rest[..<open]))
            let key = String(rest[rest.index(after: open)..<close])
            if let parameter = operation.parameters.first(where: { $0.location == .path && $0.key == key }) {
                names.insert(parameter.label)
                // `\(segment:)` takes any CustomStringConvertible: numbers and Booleans go in as they are.
                let value: String
                if case .builtin = parameter.type {
                    value = SwiftNames.escaped(parameter.label)
                } else {
                    value = textExpression(parameter.type, SwiftNames.escaped(parameter.label), optional: false)
                }
                literal += "\\(segment: \(value))"
            } else {
                literal += escapeLiteral("{" + key + "}")
            }
            rest = rest[rest.index(after: close)...]
        }
        literal += escapeLiteral(String(rest))
        return literal
    }

    private func escapeLiteral(_ text: String) -> String {
        String(SwiftNames.literal(text).dropFirst().dropLast())
    }

    /// An expression giving the text of a value for a path segment or header.
    private func textExpression(_ type: SwiftTypeReference, _ name: String, optional: Bool) -> String {
        let inner: (String) -> String
        switch type {
        case .builtin("String"): return name
        case .builtin: inner = { "String(describing: \($0))" }
        case .date: inner = { "\(api).text(of: \($0))" }
        case .openEnum: inner = { "\($0).rawValue" }
        case .array(let element):
            let each: String
            switch element {
            case .openEnum: each = "\\.rawValue"
            default: each = "\\.description"
            }
            if case .builtin = element {
                inner = { "\($0).map(\(each)).joined(separator: \",\")" }
            } else if case .openEnum = element {
                inner = { "\($0).map(\(each)).joined(separator: \",\")" }
            } else {
                inner = { "\(api).jsonText(\($0))" }
            }
        default: inner = { "\(api).jsonText(\($0))" }
        }
        return optional ? "\(name).map { \(inner("$0")) }" : inner(name)
    }

    private func methodProperty() -> String {
        var byMethod: [(String, [String])] = []
        for operation in operations {
            if let index = byMethod.firstIndex(where: { $0.0 == operation.method }) {
                byMethod[index].1.append(".\(SwiftNames.escaped(operation.caseName))")
            } else {
                byMethod.append((operation.method, [".\(SwiftNames.escaped(operation.caseName))"]))
            }
        }
        if byMethod.count == 1, let only = byMethod.first {
            return "    \(access)var method: EndpointRouter.RequestMethod { .\(only.0) }\n"
        }
        var text = "    \(access)var method: EndpointRouter.RequestMethod {\n        switch self {\n"
        for (index, (method, cases)) in byMethod.enumerated() {
            text += "        \(clause(cases, isLast: index == byMethod.count - 1)): .\(method)\n"
        }
        return text + "        }\n    }\n"
    }

    private func queryValue(_ parameter: Operation.Parameter) -> String {
        let name = SwiftNames.escaped(parameter.label)
        let optional = parameter.isOptional
        switch parameter.serialization {
        case .jsonText:
            return optional ? "\(name).map { \(api).jsonText($0) } as Any" : "\(api).jsonText(\(name))"
        case .object:
            return optional ? "\(name).map { \(api).queryObject($0) } as Any" : "\(api).queryObject(\(name))"
        case .plain:
            switch parameter.type {
            case .date: return optional ? "\(name).map { \(api).text(of: $0) } as Any" : "\(api).text(of: \(name))"
            case .openEnum: return optional ? "\(name)?.rawValue as Any" : "\(name).rawValue"
            case .array(.openEnum): return optional ? "\(name)?.map(\\.rawValue) as Any" : "\(name).map(\\.rawValue)"
            case .array(.date): return optional ? "\(name)?.map { \(api).text(of: $0) } as Any" : "\(name).map { \(api).text(of: $0) }"
            case .array(.builtin): return optional ? "\(name) as Any" : name
            case .array: return optional ? "\(name).map { \(api).queryObject($0) } as Any" : "\(api).queryObject(\(name))"
            default: return optional ? "\(name) as Any" : name
            }
        }
    }

    private func parametersProperty() -> String {
        let withQuery = operations.filter { $0.parameters.contains { $0.location == .query } }
        guard !withQuery.isEmpty else { return "" }
        var text = "    \(access)var parameters: [String: Any]? {\n        switch self {\n"
        for operation in withQuery {
            let query = operation.parameters.filter { $0.location == .query }
            let entries = query.map { "\(SwiftNames.literal($0.key)): \(queryValue($0))" }.joined(separator: ", ")
            text += "        case \(pattern(operation, binding: Set(query.map(\.label)))): return [\(entries)]\n"
        }
        if withQuery.count < operations.count { text += "        default: return nil\n" }
        return text + "        }\n    }\n"
    }

    private func queryStyleProperty() -> String {
        // OpenAPI's default (form, explode) repeats the key; a non-exploded array is comma-separated.
        let commaSeparated = operations.filter { operation in
            operation.parameters.contains { parameter in
                guard parameter.location == .query, !parameter.explode, case .array = parameter.type else { return false }
                return true
            }
        }
        guard !commaSeparated.isEmpty else {
            return "    \(access)var queryStyle: EndpointRouter.QueryStyle { EndpointRouter.QueryStyle(arrays: .repeatedKey) }\n"
        }
        var text = "    \(access)var queryStyle: EndpointRouter.QueryStyle {\n        switch self {\n"
        text +=
            "        case \(commaSeparated.map { ".\(SwiftNames.escaped($0.caseName))" }.joined(separator: ", ")): EndpointRouter.QueryStyle(arrays: .commaSeparated)\n"
        text += "        default: EndpointRouter.QueryStyle(arrays: .repeatedKey)\n"
        return text + "        }\n    }\n"
    }

    private func headersProperty() -> String {
        let withHeaders = operations.filter { $0.accept != nil || $0.parameters.contains { $0.location == .header } }
        guard !withHeaders.isEmpty else { return "" }
        var text = "    \(access)var headers: [String: String]? {\n        switch self {\n"
        for operation in withHeaders {
            let headers = operation.parameters.filter { $0.location == .header }
            // The stream call's own `Accept` (`events()` sends one; the lines call passes one)
            // replaces this one.
            let accept = operation.accept.map { ["\"Accept\": \(SwiftNames.literal($0))"] } ?? []
            let entries =
                accept
                + headers.map { parameter -> String in
                    let name = SwiftNames.escaped(parameter.label)
                    let value =
                        parameter.serialization == .jsonText
                        ? (parameter.isOptional ? "\(name).map { \(api).jsonText($0) }" : "\(api).jsonText(\(name))")
                        : textExpression(parameter.type, name, optional: parameter.isOptional)
                    return "\(SwiftNames.literal(parameter.key)): \(value)"
                }
            text +=
                "        case \(pattern(operation, binding: Set(headers.map(\.label)))): return \(api).headerFields([\(entries.joined(separator: ", "))])\n"
        }
        if withHeaders.count < operations.count { text += "        default: return nil\n" }
        return text + "        }\n    }\n"
    }

    private func bodyProperty() -> String {
        let withBody = operations.filter { $0.body != nil }
        guard !withBody.isEmpty else { return "" }
        var text = "    \(access)var body: EndpointRouter.EndpointBody? {\n        switch self {\n"
        for operation in withBody {
            guard let body = operation.body else { continue }
            let make: (String) -> String
            switch body.kind {
            case .json: make = { ".json(\($0))" }
            case .form: make = { ".form(\(api).formFields(\($0)))" }
            case .multipart: make = { ".multipart(\($0))" }
            case .text(let media): make = { ".data(Data(\($0).utf8), contentType: \(SwiftNames.literal(media)))" }
            case .data(let media): make = { ".data(\($0), contentType: \(SwiftNames.literal(media)))" }
            }
            let value = body.isOptional ? "body.map { \(make("$0")) }" : make("body")
            text += "        case \(pattern(operation, binding: ["body"])): return \(value)\n"
        }
        if withBody.count < operations.count { text += "        default: return nil\n" }
        return text + "        }\n    }\n"
    }

    private func statusProperty() -> String {
        let extra = operations.filter { !$0.extraSuccessStatuses.isEmpty }
        guard !extra.isEmpty else { return "" }
        var text = "    /// 2xx, and the 304 the document declares for conditional requests.\n"
        text += "    \(access)var acceptableStatusCodes: Set<Int> {\n        switch self {\n"
        text += "        case \(extra.map { ".\(SwiftNames.escaped($0.caseName))" }.joined(separator: ", ")): Set(200..<300).union([304])\n"
        text += "        default: Set(200..<300)\n        }\n    }\n"
        return text
    }

    func renderFrontDoor(title: String) -> String {
        var text = "/// The operations of \(title) with their documented success types; each call goes through \(api).\n"
        text += "\(access)enum \(frontDoor) {\n"
        for operation in operations {
            let parameters = declarationParameters(operation).dropFirst().dropLast()
            var arguments: [String] = operation.orderedParameters.map { "\($0.label): \(SwiftNames.escaped($0.label))" }
            if operation.body != nil { arguments.append("body") }
            let call =
                "\(api).\(SwiftNames.escaped(operation.caseName))" + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))")
            let errors =
                operation.errorTypes.isEmpty ? "" : "; failures document \(operation.errorTypes.map { "`\($0)`" }.joined(separator: ", "))"
            let signature = "\(access)static func \(SwiftNames.escaped(operation.caseName))(\(parameters))"
            let deprecated = deprecation(operation)
            switch operation.success {
            case .decoded(let type):
                text += "    /// `\(operation.method.uppercased()) \(operation.path)` → `\(code(type))`\(errors).\n"
                text += deprecated + "    \(signature) async -> Result<\(code(type)), EndpointRouter.HTTPClientError> {\n"
                text += "        await \(call).request(type: \(code(type)).self)\n    }\n"
            case .empty:
                text += "    /// `\(operation.method.uppercased()) \(operation.path)` → no body\(errors).\n"
                text += deprecated + "    \(signature) async -> Result<EndpointRouter.EmptyResponse, EndpointRouter.HTTPClientError> {\n"
                text += "        await \(call).request(type: EndpointRouter.EmptyResponse.self)\n    }\n"
            case .jsonString:
                text += "    /// `\(operation.method.uppercased()) \(operation.path)` → `String` (a JSON string)\(errors).\n"
                text += deprecated + "    \(signature) async -> Result<String, EndpointRouter.HTTPClientError> {\n"
                text += "        await \(call).response(type: Data.self).flatMap(\(api).decodeJSONString)\n    }\n"
            case .events:
                text += "    /// `\(operation.method.uppercased()) \(operation.path)` → Server-Sent Events\(errors).\n"
                text += deprecated + "    \(signature) -> EndpointRouter.ResponseStream<EndpointRouter.ServerSentEvent> {\n"
                text += "        \(call).events()\n    }\n"
            case .jsonLines(let type):
                text += "    /// `\(operation.method.uppercased()) \(operation.path)` → one `\(code(type))` per line\(errors).\n"
                text += deprecated + "    \(signature) -> EndpointRouter.ResponseStream<\(code(type))> {\n"
                text += "        \(call).jsonLines(of: \(code(type)).self)\n    }\n"
            case .lines:
                text += "    /// `\(operation.method.uppercased()) \(operation.path)` → the answer's lines, as text\(errors).\n"
                text += deprecated + "    \(signature) -> EndpointRouter.ResponseStream<String> {\n"
                text += "        \(call).lines()\n    }\n"
            }
            if let stream = operation.streamCall {
                text += streamFunction(operation, stream, parameters: String(parameters), call: call, errors: errors)
            }
        }
        return text + "}\n"
    }

    /// The second call of an operation whose answer is also offered as a stream: the same request
    /// asking for the stream's media type.
    private func streamFunction(_ operation: Operation, _ stream: Operation.StreamCall, parameters: String, call: String, errors: String)
        -> String
    {
        let route = "`\(operation.method.uppercased()) \(operation.path)` as `\(stream.media)`"
        let signature = "\(access)static func \(SwiftNames.escaped(stream.name))(\(parameters))"
        let accept = "headers: [\"Accept\": \(SwiftNames.literal(stream.media))]"
        let deprecated = deprecation(operation)
        var text = ""
        switch stream.kind {
        case .decodedEvents(let type):
            text += "    /// \(route): each event's data decoded as `\(code(type))`\(errors); `\(operation.caseName)` gives the\n"
            text += "    /// ordinary answer. The request is sent when the loop starts.\n"
            text += deprecated + "    \(signature) -> \(api).DecodedEvents<\(code(type))> {\n"
            text += "        \(api).DecodedEvents(\(call).events())\n    }\n"
        case .events:
            text += "    /// \(route): Server-Sent Events\(errors); `\(operation.caseName)` gives the ordinary answer.\n"
            text += deprecated + "    \(signature) -> EndpointRouter.ResponseStream<EndpointRouter.ServerSentEvent> {\n"
            text += "        \(call).events()\n    }\n"
        case .jsonLines(let type):
            text += "    /// \(route): one `\(code(type))` per line\(errors); `\(operation.caseName)` gives the ordinary answer.\n"
            text += deprecated + "    \(signature) -> EndpointRouter.ResponseStream<\(code(type))> {\n"
            text += "        \(call).jsonLines(of: \(code(type)).self, \(accept))\n    }\n"
        case .lines:
            text += "    /// \(route): the answer's lines, as text\(errors); `\(operation.caseName)` gives the ordinary answer.\n"
            text += deprecated + "    \(signature) -> EndpointRouter.ResponseStream<String> {\n"
            text += "        \(call).lines(\(accept))\n    }\n"
        }
        return text
    }
}
