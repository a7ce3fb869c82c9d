import Foundation

/// What to generate and how.
public struct GeneratorOptions: Sendable {
    /// `public` or `internal` declarations.
    public enum Access: String, Sendable {
        /// Declarations visible to other modules: the generated code is a library of its own.
        case `public`
        /// Declarations visible in the module the files are added to.
        case `internal`
    }
    /// The base name: `Petstore` gives `PetstoreAPI` (the enum) and `Petstore` (the typed calls).
    /// `nil` takes it from the document's title.
    public var service: String?
    /// The access level of the generated declarations.
    public var access: Access
    /// Whether schema and property descriptions become doc comments.
    public var includeDocumentation: Bool
    /// Whether OpenAPIKit reads and validates the document (after the lenient pre-pass) and what it
    /// finds is reported as warnings. Never stops generation.
    public var validate: Bool

    /// Options with the document's title as the service name and public declarations.
    public init(service: String? = nil, access: Access = .public, includeDocumentation: Bool = true, validate: Bool = true) {
        self.service = service
        self.access = access
        self.includeDocumentation = includeDocumentation
        self.validate = validate
    }
}

/// One generated Swift file.
public struct GeneratedFile: Sendable, Hashable {
    /// The file name, such as `PetstoreAPI.swift`.
    public let name: String
    /// The Swift source.
    public let contents: String
}

/// The generated files and what the generator had to change, skip or approximate.
public struct GenerationResult: Sendable {
    /// The Swift files, in a stable order.
    public let files: [GeneratedFile]
    /// Warnings, each naming the JSON pointer it is about.
    public let warnings: [GenerationWarning]
    /// Component schema name → generated Swift type name.
    public let componentTypeNames: [String: String]
    /// The service enum's name, such as `PetstoreAPI`.
    public let serviceEnum: String
}

/// Why nothing could be generated.
public struct GenerationFailure: Error, CustomStringConvertible, Sendable {
    /// A message for the person running the generator.
    public let description: String
}

/// Turns an OpenAPI 3.0 or 3.1 document (YAML or JSON) into an EndpointRouter service enum, its
/// typed front door and Codable models.
///
/// ```swift
/// let yaml = try String(contentsOfFile: "openapi.yaml", encoding: .utf8)
/// let result = try OpenAPIGenerator.generate(yaml, options: GeneratorOptions(service: "Petstore"))
/// for file in result.files { print(file.name, file.contents.count) }
/// ```
public enum OpenAPIGenerator {
    /// Models files are split at about this many lines so a large document compiles in parallel.
    static let linesPerModelsFile = 4000

    /// Generates Swift from the text of a document.
    public static func generate(_ text: String, options: GeneratorOptions = GeneratorOptions()) throws(GenerationFailure)
        -> GenerationResult
    {
        let parsed: DocumentValue
        do {
            parsed = try DocumentValue.parse(text)
        } catch {
            throw GenerationFailure(description: error.description)
        }
        guard parsed.object != nil else { throw GenerationFailure(description: "the document is not an object of OpenAPI fields") }
        guard let version = parsed["openapi"]?.string else {
            if parsed["swagger"] != nil {
                throw GenerationFailure(
                    description: "this is a Swagger 2.0 document; convert it to OpenAPI 3 first (for example with swagger2openapi)")
            }
            throw GenerationFailure(description: "the document has no 'openapi' field; is it an OpenAPI 3.0 or 3.1 document?")
        }
        guard version.hasPrefix("3.0") || version.hasPrefix("3.1") else {
            throw GenerationFailure(description: "OpenAPI \(version) is not supported; 3.0.x and 3.1.x are")
        }
        var prePass = LenientPrePass(document: parsed)
        let document = prePass.fix(parsed)
        let specificationCheck = options.validate ? BackgroundSpecificationCheck(document: document, version: version) : nil

        let title = document["info"]?["title"]?.string ?? "API"
        var base = SwiftNames.typeName(options.service ?? title)
        if options.service == nil, base.hasSuffix("API"), base.count > 3 { base = String(base.dropLast(3)) }
        if SwiftNames.reservedTypeNames.contains(base) { base += "Service" }
        let api = base + "API"
        let access = options.access == .public ? "public " : ""

        let schemas = SchemaTranslator(
            document: document, service: api, typePrefix: base, reservedNames: [base, api])
        schemas.translateComponents()
        var reader = OperationReader(document: document, schemas: schemas)
        let operations = reader.read()

        let models = ModelRenderer(
            api: api, access: access, includeDocumentation: options.includeDocumentation,
            requestTypes: schemas.typesReachable(from: operations.compactMap { $0.body?.type })
        ).render(schemas)
        let header =
            "// Generated by endpointrouter-openapi from \"\(title)\" \(document["info"]?["version"]?.string ?? "") (OpenAPI \(version)). Do not edit.\n"
        let imports = "import EndpointRouter\nimport Foundation\n"

        var files: [GeneratedFile] = []
        var generatedText = models.blocks.joined()
        if !operations.isEmpty {
            let renderer = ServiceRenderer(
                api: api, frontDoor: base, access: access, operations: operations, includeDocumentation: options.includeDocumentation)
            var service = header + imports + "\n" + renderer.renderEnum(title: title) + "\n" + renderer.renderFrontDoor(title: title)
            service +=
                "\n"
                + SecurityRenderer(api: api, access: access).render(document["components"]?["securitySchemes"]?.object, schemas: schemas)
            files.append(GeneratedFile(name: "\(api).swift", contents: service))
            generatedText += service
        } else {
            let namespace =
                "/// \(title) describes no operation (only webhooks or models); its models and support live here.\n\(access)enum \(api) {}\n"
            files.append(GeneratedFile(name: "\(api).swift", contents: header + imports + "\n" + namespace))
        }
        let servers = ServerRenderer(api: api, access: access).render(document["servers"]?.array ?? [], schemas: schemas)
        let support = SupportRenderer(api: api, access: access).render(usesIndirect: models.usesIndirect, servers: servers) {
            generatedText.contains($0)
        }
        files.append(GeneratedFile(name: "\(api)+Support.swift", contents: header + imports + "\n" + support))

        var chunks: [String] = []
        var current = ""
        var lines = 0
        for block in models.blocks {
            let blockLines = block.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
            if lines + blockLines > linesPerModelsFile, !current.isEmpty {
                chunks.append(current)
                current = ""
                lines = 0
            }
            current += (current.isEmpty ? "" : "\n") + block
            lines += blockLines + 1
        }
        if !current.isEmpty { chunks.append(current) }
        for (index, chunk) in chunks.enumerated() {
            let name = chunks.count == 1 ? "\(base)Models.swift" : "\(base)Models\(index + 1).swift"
            files.append(GeneratedFile(name: name, contents: header + imports + "\n" + chunk))
        }
        let specificationWarnings = specificationCheck?.wait() ?? []
        return GenerationResult(
            files: files, warnings: prePass.warnings + specificationWarnings + schemas.warnings,
            componentTypeNames: schemas.componentNames, serviceEnum: api)
    }
}
