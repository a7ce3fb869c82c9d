/// Writes the document's `servers`: the default one (absolute, variables at their defaults) and a
/// function per server with variables.
struct ServerRenderer {
    let api: String
    let access: String

    func render(_ servers: [DocumentValue], schemas: SchemaTranslator) -> String {
        var text = ""
        var defaultServer: String?
        var templatedDefault: String?
        var functionNames: Set<String> = []
        for (index, server) in servers.enumerated() {
            guard let template = server["url"]?.string else { continue }
            let pointer = JSONPointer(["servers", String(index)])
            let variables = server["variables"]?.object?.members ?? []
            var resolved = template
            for (name, variable) in variables {
                resolved = resolved.replacingOccurrences(of: "{\(name)}", with: Self.text(variable["default"]) ?? "")
            }
            let isAbsolute = resolved.hasPrefix("http://") || resolved.hasPrefix("https://")
            // A server with variables is a template for the user's own (Azure's
            // `https://{endpoint}/openai`, default `your-resource-name.openai.azure.com`): the
            // default is the first server without variables, and a template's defaults only when
            // no such server exists and they name a real host.
            if !variables.isEmpty {
                if templatedDefault == nil, isAbsolute, !Self.hasPlaceholderHost(resolved) { templatedDefault = resolved }
            } else if defaultServer == nil {
                if !isAbsolute {
                    schemas.warn(
                        pointer, "server '\(template)' is not an absolute http(s) URL; set one with \(api).configuration.use(server:)")
                } else if Self.hasPlaceholderHost(resolved) {
                    schemas.warn(pointer, "server '\(resolved)' has a placeholder host; set one with \(api).configuration.use(server:)")
                } else {
                    defaultServer = resolved
                }
            }
            guard !variables.isEmpty else { continue }
            let functionName = SwiftNames.unique("server\(index + 1)", in: &functionNames)
            var parameters: [String] = []
            var literal = String(SwiftNames.literal(template).dropFirst().dropLast())
            var labels: Set<String> = []
            for (name, variable) in variables {
                let label = SwiftNames.unique(SwiftNames.memberName(name), in: &labels)
                parameters.append("\(label): String = \(SwiftNames.literal(Self.text(variable["default"]) ?? ""))")
                literal = literal.replacingOccurrences(of: "{\(name)}", with: "\\(\(SwiftNames.escaped(label)))")
            }
            let description = SwiftNames.summary(server["description"]?.string).map { ": " + $0 } ?? ""
            text += "    /// `\(template)`\(description)\n"
            text += "    \(access)static func \(functionName)(\(parameters.joined(separator: ", "))) -> String { \"\(literal)\" }\n"
        }
        if defaultServer == nil { defaultServer = templatedDefault }
        if servers.isEmpty {
            schemas.warn(JSONPointer(["servers"]), "the document names no server; set one with \(api).configuration.use(server:)")
        } else if defaultServer == nil, !functionNames.isEmpty {
            schemas.warn(
                JSONPointer(["servers"]),
                "no server of the document is a default (each has variables with placeholder values); set one with "
                    + "\(api).configuration.use(server: \(api).\(functionNames.sorted().first ?? "server1")(…))")
        }
        let value = defaultServer.map(SwiftNames.literal) ?? "nil"
        return "    /// The document's first absolute server without variables (else a template's defaults), the one calls go to until\n"
            + "    /// another is set.\n"
            + "    \(access)static let defaultServer: String? = \(value)\n" + text
    }

    static func text(_ value: DocumentValue?) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): String(number)
        case .bool(let flag): String(flag)
        default: nil
        }
    }

    /// `HOSTNAME`, `{hostname}`-style defaults and `your-resource-name.…` are not servers to call.
    static func hasPlaceholderHost(_ url: String) -> Bool {
        guard let schemeEnd = url.range(of: "://") else { return true }
        let host = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != ":" }
        return host.isEmpty || host.allSatisfy { $0.isUppercase || $0 == "_" } || host.contains("{")
            || host.lowercased().hasPrefix("your-") || host.lowercased().hasPrefix("your_")
    }
}

/// Writes one credential-making function per security scheme, so an app hands the store the
/// credential in the place the document says without knowing header or query names.
struct SecurityRenderer {
    let api: String
    let access: String

    func render(_ schemes: DocumentObject?, schemas: SchemaTranslator) -> String {
        guard let schemes, !schemes.keys.isEmpty else { return "" }
        var body = ""
        var names: Set<String> = []
        for (key, scheme) in schemes.members {
            let pointer = JSONPointer(["components", "securitySchemes", key])
            let name = SwiftNames.escaped(SwiftNames.unique(SwiftNames.memberName(key), in: &names))
            let description = SwiftNames.summary(scheme["description"]?.string).map { " " + $0 } ?? ""
            switch (scheme["type"]?.string, scheme["scheme"]?.string?.lowercased(), scheme["in"]?.string) {
            case ("http", "basic", _):
                body += "        /// `\(key)`: HTTP Basic.\(description)\n"
                body +=
                    "        \(access)static func \(name)(username: String, password: String) -> EndpointRouter.Credential { .basic(username: username, password: password) }\n"
            case ("http", _, _), ("oauth2", _, _), ("openIdConnect", _, _):
                body += "        /// `\(key)`: a bearer token in `Authorization`.\(description)\n"
                body += "        \(access)static func \(name)(_ token: String) -> EndpointRouter.Credential { .bearer(token) }\n"
            case ("apiKey", _, "header"):
                let header = scheme["name"]?.string ?? key
                body += "        /// `\(key)`: an API key in the `\(header)` header.\(description)\n"
                body +=
                    "        \(access)static func \(name)(_ key: String) -> EndpointRouter.Credential { .header(name: \(SwiftNames.literal(header)), value: key) }\n"
            case ("apiKey", _, "query"):
                let item = scheme["name"]?.string ?? key
                body += "        /// `\(key)`: an API key in the `\(item)` query item.\(description)\n"
                body +=
                    "        \(access)static func \(name)(_ key: String) -> EndpointRouter.Credential { .query(name: \(SwiftNames.literal(item)), value: key) }\n"
            default:
                schemas.warn(
                    pointer,
                    "security scheme '\(key)' (\(scheme["type"]?.string ?? "no type")) is not supported yet; add it with a middleware")
            }
        }
        guard !body.isEmpty else { return "" }
        return """
            extension \(api) {
                /// The credential of each security scheme, placed as the document says; hand one to a
                /// `CredentialStore` and pass the store to `\(api).configuration.use(credentials:)`.
                \(access)enum Credentials {

            """ + body + "    }\n}\n"
    }
}
