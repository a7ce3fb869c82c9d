/// Reads the `paths` of a document into ``Operation``s, naming them and their parameters.
struct OperationReader {
    let document: DocumentValue
    let schemas: SchemaTranslator
    private var takenCaseNames: Set<String> = [
        "host", "path", "endpoint", "method", "parameters", "headers", "parameterEncoding", "queryStyle", "body", "timeout",
        "maxResponseSize", "redirectPolicy", "endpointName", "acceptableStatusCodes", "decoder", "encoder", "transport",
        "middlewares", "options", "init", "configuration", "documentedError", "jsonDecoder", "jsonEncoder",
    ]

    init(document: DocumentValue, schemas: SchemaTranslator) {
        self.document = document
        self.schemas = schemas
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    mutating func read() -> [Operation] {
        var operations: [Operation] = []
        let pathsPointer = JSONPointer(["paths"])
        for (path, rawItem) in document["paths"]?.object?.members ?? [] {
            let itemPointer = pathsPointer.appending(path)
            guard let (item, _) = schemas.resolve(rawItem, at: itemPointer), let itemObject = item.object else { continue }
            let shared = itemObject["parameters"]?.array ?? []
            for method in Self.methods {
                guard let operation = itemObject[method]?.object else { continue }
                operations.append(read(operation, method: method, path: path, shared: shared, at: itemPointer.appending(method)))
            }
        }
        for key in ["webhooks", "callbacks"] where document[key] != nil {
            schemas.warn(JSONPointer([key]), "\(key) describe requests the server sends, not calls to it; no case is generated for them")
        }
        return operations
    }

    private mutating func read(_ operation: DocumentObject, method: String, path: String, shared: [DocumentValue], at pointer: JSONPointer)
        -> Operation
    {
        let caseName = SwiftNames.unique(
            Self.caseName(operationId: operation["operationId"]?.string, method: method, path: path), in: &takenCaseNames)
        let typePrefix = SwiftNames.typeName(caseName)
        var labels: Set<String> = ["body"]
        var parameters: [Operation.Parameter] = []
        var seen: Set<String> = []
        // Operation parameters override path-item ones of the same name and location.
        let own = (operation["parameters"]?.array ?? []).enumerated().map { ($1, pointer.appending("parameters").appending(String($0))) }
        let inherited = shared.enumerated().map {
            ($1, pointer.tokens.dropLast().reduce(JSONPointer()) { $0.appending($1) }.appending("parameters").appending(String($0)))
        }
        for (raw, parameterPointer) in own + inherited {
            guard let (resolved, _) = schemas.resolve(raw, at: parameterPointer), let parameter = resolved.object,
                let name = parameter["name"]?.string, let location = parameter["in"]?.string
            else { continue }
            guard seen.insert(location + ":" + name).inserted else { continue }
            guard let place = Operation.Location(rawValue: location) else {
                schemas.warn(parameterPointer, "\(location) parameter '\(name)' is not supported yet; set it with a middleware")
                continue
            }
            if place == .path, !path.contains("{\(name)}") {
                // OpenAPIKit checks only the other way round (a template variable nobody declares).
                schemas.warn(parameterPointer, "path parameter '\(name)' is not in the path template '\(path)'; its value is not sent")
            }
            var schema = parameter["schema"]
            var serialization = Operation.Serialization.plain
            if schema == nil, let content = parameter["content"]?.object, let first = content.members.first {
                schema = first.value["schema"]
                serialization = .jsonText
            }
            let style = parameter["style"]?.string ?? (place == .query ? "form" : "simple")
            let explode = parameter["explode"]?.bool ?? (style == "form")
            var (type, nullable) = schemas.type(
                of: schema ?? .object(DocumentObject()), at: parameterPointer.appending("schema"),
                name: typePrefix + SwiftNames.typeName(name))
            if schemas.isScalarChoice(type) {
                // `oneOf: [integer, string]` (GitHub's workflow_id) is sent as text either way.
                type = .builtin("String")
            }
            if serialization == .plain {
                switch type {
                case .model, .dictionary, .json:
                    serialization = .object
                    if style != "deepObject" {
                        schemas.warn(parameterPointer, "object parameter '\(name)' with style \(style) is sent as name[key]=value")
                    }
                default: break
                }
            }
            let label = SwiftNames.unique(SwiftNames.propertyName(name), in: &labels)
            let isRequired = place == .path || parameter["required"]?.bool == true
            parameters.append(
                Operation.Parameter(
                    key: name, label: label, location: place, type: type, isOptional: !isRequired || nullable, serialization: serialization,
                    explode: explode))
        }
        let body = readBody(operation["requestBody"], at: pointer.appending("requestBody"), typePrefix: typePrefix)
        let (success, errorTypes, extraStatuses) = readResponses(
            operation["responses"]?.object, at: pointer.appending("responses"), typePrefix: typePrefix)
        let security = operation["security"] ?? document["security"]
        let requiresAuthorization = (security?.array?.contains { ($0.object?.keys.count ?? 0) > 0 }) ?? false
        return Operation(
            caseName: caseName, method: method, path: path,
            summary: SwiftNames.summary(operation["summary"]?.string ?? operation["description"]?.string), parameters: parameters,
            body: body, success: success, errorTypes: errorTypes, extraSuccessStatuses: extraStatuses,
            requiresAuthorization: requiresAuthorization)
    }

    /// `operationId` made lowerCamel (`meta/root` → `metaRoot`), or method and the path's literal
    /// words (`GET /search/{v}/geocode/{q}.{ext}` → `getSearchGeocode`).
    static func caseName(operationId: String?, method: String, path: String) -> String {
        if let operationId, !SwiftNames.words(operationId).isEmpty {
            return SwiftNames.memberName(operationId)
        }
        var literal = ""
        var depth = 0
        for character in path {
            if character == "{" {
                depth += 1
            } else if character == "}" {
                depth -= 1
            } else if depth == 0 {
                literal.append(character)
            } else {
                continue
            }
            if character == "}" { literal.append("/") }
        }
        return SwiftNames.memberName(method + " " + literal)
    }

    private func readBody(_ raw: DocumentValue?, at pointer: JSONPointer, typePrefix: String) -> Operation.Body? {
        guard let raw, let (resolved, resolvedPointer) = schemas.resolve(raw, at: pointer), let content = resolved["content"]?.object else {
            return nil
        }
        let isOptional = resolved["required"]?.bool != true
        let media = content.keys
        func schema(_ type: String) -> (DocumentValue, JSONPointer) {
            (
                content[type]?["schema"] ?? .object(DocumentObject()),
                resolvedPointer.appending("content").appending(type).appending("schema")
            )
        }
        if let json = media.first(where: Self.isJSON) {
            let (value, schemaPointer) = schema(json)
            let (type, nullable) = schemas.type(of: value, at: schemaPointer, name: typePrefix + "Request")
            return Operation.Body(type: type, kind: .json, isOptional: isOptional || nullable)
        }
        if let form = media.first(where: { $0.hasPrefix("application/x-www-form-urlencoded") }) {
            let (value, schemaPointer) = schema(form)
            let (type, _) = schemas.type(of: value, at: schemaPointer, name: typePrefix + "Form")
            return Operation.Body(type: type, kind: .form, isOptional: isOptional)
        }
        if media.contains(where: { $0.hasPrefix("multipart/") }) {
            return Operation.Body(type: .builtin("MultipartFormData"), kind: .multipart, isOptional: isOptional)
        }
        if let text = media.first(where: { $0.hasPrefix("text/") }) {
            return Operation.Body(type: .builtin("String"), kind: .text(text), isOptional: isOptional)
        }
        let other = media.first ?? "application/octet-stream"
        return Operation.Body(
            type: .builtin("Data"), kind: .data(other == "*/*" ? "application/octet-stream" : other), isOptional: isOptional)
    }

    static func isJSON(_ media: String) -> Bool {
        let type = media.split(separator: ";").first.map(String.init)?.lowercased() ?? ""
        return type == "application/json" || type.hasSuffix("+json") || type == "*/*" && false
    }

    private func readResponses(_ responses: DocumentObject?, at pointer: JSONPointer, typePrefix: String)
        -> (Operation.Success, [String], [Int])
    {
        guard let responses else { return (.empty, [], []) }
        var success: Operation.Success?
        var errors: [String] = []
        var extra: [Int] = []
        for (status, raw) in responses.members {
            let isSuccess = status.hasPrefix("2")
            if status == "304" { extra.append(304) }
            guard let (response, responsePointer) = schemas.resolve(raw, at: pointer.appending(status)) else { continue }
            let content = response["content"]?.object
            if isSuccess, success == nil {
                success = readSuccess(content, at: responsePointer.appending("content"), typePrefix: typePrefix)
            } else if !isSuccess, status != "304", let content, let json = content.keys.first(where: Self.isJSON),
                let schema = content[json]?["schema"]
            {
                let (type, _) = schemas.type(
                    of: schema, at: responsePointer.appending("content").appending(json).appending("schema"),
                    name: typePrefix + "Error" + (status == "default" ? "" : status))
                let code = type.code(service: schemas.service)
                if !errors.contains(code) { errors.append(code) }
            }
        }
        return (success ?? .decoded(.builtin("Data")), errors, extra)
    }

    private func readSuccess(_ content: DocumentObject?, at pointer: JSONPointer, typePrefix: String) -> Operation.Success {
        guard let content, let first = content.keys.first else { return .empty }
        if let stream = content.keys.first(where: { $0.hasPrefix("text/event-stream") }) {
            _ = stream
            return .events
        }
        if let lines = content.keys.first(where: { $0.hasPrefix("application/x-ndjson") || $0.hasPrefix("application/jsonl") }) {
            let (type, _) = schemas.type(
                of: content[lines]?["schema"] ?? .object(DocumentObject()), at: pointer.appending(lines).appending("schema"),
                name: typePrefix + "Line")
            return .jsonLines(type)
        }
        if let json = content.keys.first(where: Self.isJSON) {
            guard let schema = content[json]?["schema"] else { return .decoded(.json) }
            let (type, nullable) = schemas.type(of: schema, at: pointer.appending(json).appending("schema"), name: typePrefix + "Response")
            if !nullable, type == .builtin("String") { return .jsonString }
            return .decoded(nullable ? .json : type)
        }
        if first.hasPrefix("text/") { return .decoded(.builtin("String")) }
        return .decoded(.builtin("Data"))
    }
}
