import Foundation

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
            if place == .path, type == .json {
                // A path value is text: a schema without a type (FastAPI's `{title: Job Id}`) says
                // nothing else, and any JSON would send `"value"` with its quotes.
                type = .builtin("String")
            }
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
            // A path segment cannot be left out or be null: `anyOf [integer, null]` in a path
            // (FastAPI's `int | None`) is still one value in the path.
            let isOptional = place == .path ? false : parameter["required"]?.bool != true || nullable
            parameters.append(
                Operation.Parameter(
                    key: name, label: label, location: place, type: type, isOptional: isOptional, serialization: serialization,
                    explode: explode))
        }
        let body = readBody(operation["requestBody"], at: pointer.appending("requestBody"), typePrefix: typePrefix)
        let (answer, errorTypes, extraStatuses) = readResponses(
            operation["responses"]?.object, at: pointer.appending("responses"), typePrefix: typePrefix)
        var streamCall: Operation.StreamCall?
        if let (media, kind) = answer.stream {
            let suffix: String
            switch kind {
            case .events, .decodedEvents: suffix = "Events"
            case .jsonLines, .lines: suffix = "Lines"
            }
            streamCall = Operation.StreamCall(name: SwiftNames.unique(caseName + suffix, in: &takenCaseNames), media: media, kind: kind)
        }
        let security = operation["security"] ?? document["security"]
        let requiresAuthorization = (security?.array?.contains { ($0.object?.keys.count ?? 0) > 0 }) ?? false
        return Operation(
            caseName: caseName, method: method, path: path,
            summary: SwiftNames.summary(operation["summary"]?.string ?? operation["description"]?.string),
            description: Self.description(of: operation), parameters: parameters,
            body: body, success: answer.success, errorTypes: errorTypes, extraSuccessStatuses: extraStatuses,
            requiresAuthorization: requiresAuthorization, accept: answer.accept, streamCall: streamCall,
            isDeprecated: operation["deprecated"]?.bool == true)
    }

    /// The operation's whole description, unless the summary line already says all of it.
    static func description(of operation: DocumentObject) -> String? {
        guard let full = SwiftNames.documentation(operation["description"]?.string) else { return nil }
        let summary = SwiftNames.summary(operation["summary"]?.string ?? operation["description"]?.string)
        return full == summary ? nil : full
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

    /// The first 2xx answer: what the ordinary call returns, the `Accept` it sends, and the
    /// stream a second call reads when the answer is also offered as one.
    struct Answer {
        var success: Operation.Success
        var accept: String?
        var stream: (media: String, kind: Operation.Stream)?
    }

    private func readResponses(_ responses: DocumentObject?, at pointer: JSONPointer, typePrefix: String)
        -> (Answer, [String], [Int])
    {
        guard let responses else { return (Answer(success: .empty), [], []) }
        var success: Answer?
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
        return (success ?? Answer(success: .decoded(.builtin("Data"))), errors, extra)
    }

    static func isEventStream(_ media: String) -> Bool { media.lowercased().hasPrefix("text/event-stream") }

    static func isJSONLines(_ media: String) -> Bool {
        let type = media.lowercased()
        return type.hasPrefix("application/x-ndjson") || type.hasPrefix("application/jsonl") || type.hasPrefix("application/x-jsonlines")
    }

    /// The success answer. A stream offered beside JSON, text or bytes (the same operation answers
    /// either, chosen by `Accept`) does not replace the ordinary answer: a server answering JSON to
    /// a call that reads events would give no event and no error. The ordinary call asks for its
    /// media type, and the stream gets a second call.
    private func readSuccess(_ content: DocumentObject?, at pointer: JSONPointer, typePrefix: String) -> Answer {
        guard let content, !content.keys.isEmpty else { return Answer(success: .empty) }
        let streamMedia = content.keys.first(where: Self.isEventStream) ?? content.keys.first(where: Self.isJSONLines)
        let stream = streamMedia.map { ($0, readStream($0, content: content, at: pointer, typePrefix: typePrefix)) }
        let others = content.keys.filter { !Self.isEventStream($0) && !Self.isJSONLines($0) }
        guard let first = others.first else {
            guard let (_, kind) = stream else { return Answer(success: .empty) }
            switch kind {
            // The only answer: the call that exists already, as it always was (events untyped).
            case .events, .decodedEvents: return Answer(success: .events, accept: nil, stream: nil)
            case .jsonLines(let type): return Answer(success: .jsonLines(type), accept: nil, stream: nil)
            case .lines: return Answer(success: .lines, accept: nil, stream: nil)
            }
        }
        let chosen = others.first(where: Self.isJSON) ?? first
        let success: Operation.Success
        if Self.isJSON(chosen) {
            if let schema = content[chosen]?["schema"] {
                let (type, nullable) = schemas.type(
                    of: schema, at: pointer.appending(chosen).appending("schema"), name: typePrefix + "Response")
                if !nullable, type == .builtin("String") {
                    success = .jsonString
                } else {
                    success = .decoded(nullable ? .json : type)
                }
            } else {
                success = .decoded(.json)
            }
        } else if chosen.lowercased().hasPrefix("text/") {
            success = .decoded(.builtin("String"))
        } else {
            success = .decoded(.builtin("Data"))
        }
        // `*/*` or a wildcard asks for nothing in particular.
        let accept = stream != nil && !chosen.contains("*") ? chosen : nil
        return Answer(success: success, accept: accept, stream: stream)
    }

    /// How a streamed answer's elements are read.
    private func readStream(_ media: String, content: DocumentObject, at pointer: JSONPointer, typePrefix: String) -> Operation.Stream {
        let mediaObject = content[media]
        let schemaPointer = pointer.appending(media).appending("schema")
        if Self.isEventStream(media) {
            guard let schema = mediaObject?["schema"] else { return .events }
            let (type, _) = schemas.type(of: schema, at: schemaPointer, name: typePrefix + "Event")
            switch type {
            case .builtin("String"), .json: return .events
            default: return .decodedEvents(type)
            }
        }
        let (type, _) = schemas.type(
            of: mediaObject?["schema"] ?? .object(DocumentObject()), at: schemaPointer, name: typePrefix + "Line")
        guard type == .builtin("String") else { return .jsonLines(type) }
        // Lines declared as strings (FastAPI's `StreamingResponse`): JSON values when the example
        // shows them, else text.
        let example = mediaObject?["schema"]?["example"]?.string ?? mediaObject?["example"]?.string
        if let example, Self.linesAreJSON(example) { return .jsonLines(.json) }
        return .lines
    }

    /// Whether every non-blank line of `example` is a JSON object or array.
    static func linesAreJSON(_ example: String) -> Bool {
        let lines = example.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { return false }
        return lines.allSatisfy { line in
            guard line.hasPrefix("{") || line.hasPrefix("["), let data = line.data(using: .utf8) else { return false }
            return (try? JSONSerialization.jsonObject(with: data)) != nil
        }
    }
}
