import Foundation

/// Reads the schemas of a document into Swift model declarations.
///
/// `$ref`s are followed by hand rather than dereferencing the document first: a recursive schema
/// cannot be dereferenced, and the names of components become the names of types.
final class SchemaTranslator {
    let document: DocumentValue
    let service: String
    private(set) var warnings: [GenerationWarning] = []
    private(set) var structs: [StructDeclaration] = []
    private(set) var choices: [ChoiceDeclaration] = []
    private(set) var openEnums: [OpenEnumDeclaration] = []
    private(set) var aliases: [(name: String, type: SwiftTypeReference, summary: String?)] = []
    /// Every type name in use, so inline schemas never take a component's name.
    var takenTypeNames: Set<String>
    /// Component schema name → Swift type name, assigned before any schema is read.
    private(set) var componentNames: [String: String] = [:]
    private var componentTypes: [String: (SwiftTypeReference, Bool)] = [:]
    private var componentsInProgress: Set<String> = []
    /// Inline schemas already declared, by their exact text: a document that repeats the same
    /// inline object (GitHub's copies of a user object) gets one type, not one per use.
    private var inlineTypes: [DocumentValue: (SwiftTypeReference, Bool)] = [:]

    /// Put before a name that would shadow a Swift or EndpointRouter type: `Error` → `PetstoreError`.
    let typePrefix: String

    init(document: DocumentValue, service: String, typePrefix: String, reservedNames: Set<String>) {
        self.document = document
        self.service = service
        self.typePrefix = typePrefix
        takenTypeNames = reservedNames
        for key in document["components"]?["schemas"]?.object?.keys ?? [] {
            componentNames[key] = newTypeName(key)
        }
    }

    func warn(_ pointer: JSONPointer, _ message: String) {
        warnings.append(GenerationWarning(pointer: pointer, message: message))
    }

    /// A type name from `raw` that shadows nothing and is not taken yet.
    func newTypeName(_ raw: String) -> String {
        var name = SwiftNames.typeName(raw)
        if SwiftNames.reservedTypeNames.contains(name) { name = typePrefix + name }
        return SwiftNames.unique(name, in: &takenTypeNames)
    }

    /// Reads every component schema, in document order, so each gets its declaration even when no
    /// operation uses it.
    func translateComponents() {
        for key in document["components"]?["schemas"]?.object?.keys ?? [] {
            _ = componentType(key)
        }
    }

    /// The type of `#/components/schemas/<key>` and whether it is nullable.
    func componentType(_ key: String) -> (SwiftTypeReference, Bool) {
        if let known = componentTypes[key] { return known }
        let name = componentNames[key] ?? newTypeName(key)
        let pointer = JSONPointer(["components", "schemas", key])
        guard let schema = document.value(at: pointer) else { return (.json, false) }
        if componentsInProgress.contains(key) {
            // A schema reached again while being read is recursive; only a named type can be.
            return (.model(name), false)
        }
        componentsInProgress.insert(key)
        defer { componentsInProgress.remove(key) }
        let result = type(of: schema, at: pointer, name: name, isComponent: true)
        componentTypes[key] = result
        if case .model(let declared) = result.0, declared == name {
        } else if case .openEnum(let declared) = result.0, declared == name {
        } else {
            aliases.append((name, result.0, SwiftNames.documentation(schema["description"]?.string)))
        }
        return result
    }

    /// Resolves a `$ref` anywhere: components by name, other local pointers by value.
    func resolve(_ value: DocumentValue, at pointer: JSONPointer) -> (DocumentValue, JSONPointer)? {
        var current = value
        var currentPointer = pointer
        for _ in 0..<16 {
            guard let reference = current["$ref"]?.string else { return (current, currentPointer) }
            guard let target = JSONPointer(reference: reference), let resolved = document.value(at: target) else {
                warn(pointer, "cannot follow $ref '\(reference)' (references into other files are not supported yet)")
                return nil
            }
            current = resolved
            currentPointer = target
        }
        warn(pointer, "a chain of $refs too long to follow")
        return nil
    }

    /// The Swift type for `schema` and whether it is nullable. `name` is the type name to declare
    /// when the schema needs a type of its own (an object, an enum, a oneOf).
    func type(of schema: DocumentValue, at pointer: JSONPointer, name: String, isComponent: Bool = false) -> (SwiftTypeReference, Bool) {
        if let reference = schema["$ref"]?.string {
            let prefix = "#/components/schemas/"
            if reference.hasPrefix(prefix), let target = JSONPointer(reference: reference), target.tokens.count == 3 {
                let result = componentType(target.tokens[2])
                return (result.0, result.1 || schema["nullable"]?.bool == true)
            }
            guard let (resolved, resolvedPointer) = resolve(schema, at: pointer) else { return (.json, false) }
            return type(of: resolved, at: resolvedPointer, name: name)
        }
        guard let object = schema.object else {
            // `true` (any value) or `false` (nothing): both can only be described as any JSON.
            return (.json, false)
        }
        if !isComponent, let known = inlineTypes[schema] { return known }
        let result = inlineType(of: object, at: pointer, name: name, isComponent: isComponent)
        if !isComponent {
            switch result.0 {
            case .model, .openEnum: inlineTypes[schema] = result
            default: break
            }
        }
        return result
    }

    private func inlineType(of object: DocumentObject, at pointer: JSONPointer, name: String, isComponent: Bool) -> (
        SwiftTypeReference, Bool
    ) {
        var nullable = object["nullable"]?.bool == true

        // anyOf/oneOf [X, null]: a nullable X, never a dropped property.
        for keyword in ["oneOf", "anyOf"] {
            guard let members = object[keyword]?.array else { continue }
            let nonNull = members.filter { !isNullSchema($0) }
            if nonNull.count < members.count { nullable = true }
            if nonNull.count == 1, object["properties"] == nil {
                let inner = type(of: nonNull[0], at: pointer.appending(keyword).appending("0"), name: name, isComponent: isComponent)
                return (inner.0, inner.1 || nullable)
            }
            if nonNull.count > 1 {
                return (choice(nonNull, keyword: keyword, schema: object, at: pointer, name: name, isComponent: isComponent), nullable)
            }
        }
        if let members = object["allOf"]?.array {
            return (allOf(members, schema: object, at: pointer, name: name, isComponent: isComponent), nullable)
        }

        var types: [String] = []
        switch object["type"] {
        case .string(let single): types = [single]
        case .array(let many): types = many.compactMap(\.string)
        default: break
        }
        if types.contains("null") {
            nullable = true
            types.removeAll { $0 == "null" }
        }
        if let values = object["enum"]?.array {
            if values.contains(.null) { nullable = true }
            let strings = values.compactMap(\.string)
            if !strings.isEmpty, strings.count == values.filter({ $0 != .null }).count, types.isEmpty || types == ["string"] {
                return (openEnum(strings, schema: object, name: name, isComponent: isComponent), nullable)
            }
        }
        if types.isEmpty, let constant = object["const"] {
            switch constant {
            case .string: types = ["string"]
            case .integer: types = ["integer"]
            case .number: types = ["number"]
            case .bool: types = ["boolean"]
            default: break
            }
        }
        if types.isEmpty, object["properties"] != nil || object["additionalProperties"] != nil { types = ["object"] }
        if types.isEmpty, object["items"] != nil { types = ["array"] }
        guard types.count == 1, let kind = types.first else {
            return (.json, nullable)
        }
        switch kind {
        case "string":
            return (object["format"]?.string == "date-time" ? .date : .builtin("String"), nullable)
        case "integer":
            switch object["format"]?.string {
            case "int32": return (.builtin("Int32"), nullable)
            case "int64": return (.builtin("Int64"), nullable)
            default: return (.builtin("Int"), nullable)
            }
        case "number":
            return (.builtin(object["format"]?.string == "float" ? "Float" : "Double"), nullable)
        case "boolean":
            return (.builtin("Bool"), nullable)
        case "array":
            guard let items = object["items"] else { return (.array(.json), nullable) }
            let element = type(of: items, at: pointer.appending("items"), name: name + "Item")
            return (.array(Self.element(element)), nullable)
        case "object":
            let properties = object["properties"]?.object
            if let properties, !properties.keys.isEmpty {
                return (
                    structure(
                        properties: [(properties, pointer.appending("properties"))], required: requiredKeys(object), schema: object,
                        at: pointer, name: name, isComponent: isComponent), nullable
                )
            }
            return (dictionary(object, at: pointer, name: name), nullable)
        default:
            warn(pointer, "unknown type '\(kind)'; generated as any JSON value")
            return (.json, nullable)
        }
    }

    private func dictionary(_ object: DocumentObject, at pointer: JSONPointer, name: String) -> SwiftTypeReference {
        guard let additional = object["additionalProperties"], additional.object != nil else { return .dictionary(.json) }
        let value = type(of: additional, at: pointer.appending("additionalProperties"), name: name + "Value")
        return .dictionary(Self.element(value))
    }

    /// The names of the generated structs and enums `roots` hold, through properties, alternatives,
    /// arrays and dictionaries.
    func typesReachable(from roots: [SwiftTypeReference]) -> Set<String> {
        let structsByName = Dictionary(structs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let choicesByName = Dictionary(choices.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var found: Set<String> = []
        var pending = roots
        while let type = pending.popLast() {
            switch type {
            case .model(let name):
                guard found.insert(name).inserted else { continue }
                pending += structsByName[name]?.properties.map(\.type) ?? []
                pending += choicesByName[name]?.alternatives.map(\.type) ?? []
            case .array(let element), .dictionary(let element), .optional(let element):
                pending.append(element)
            case .builtin, .date, .openEnum, .json:
                continue
            }
        }
        return found
    }

    /// Whether `type` is a generated oneOf/anyOf whose alternatives are all numbers, strings or
    /// Booleans.
    func isScalarChoice(_ type: SwiftTypeReference) -> Bool {
        guard case .model(let name) = type, let choice = choices.first(where: { $0.name == name }) else { return false }
        return choice.alternatives.allSatisfy {
            if case .builtin = $0.type { return true }
            if case .openEnum = $0.type { return true }
            return false
        }
    }

    /// An array element or dictionary value: optional when nullable (`JSONValue` has its own null).
    static func element(_ type: (SwiftTypeReference, Bool)) -> SwiftTypeReference {
        guard type.1 else { return type.0 }
        if case .json = type.0 { return .json }
        return .optional(type.0)
    }

    func isNullSchema(_ schema: DocumentValue) -> Bool {
        guard let object = schema.object else { return false }
        if object["type"]?.string == "null" { return true }
        if let types = object["type"]?.array, types == [.string("null")] { return true }
        if let values = object["enum"]?.array, values == [.null] { return true }
        return false
    }

    private func requiredKeys(_ object: DocumentObject) -> Set<String> {
        Set(object["required"]?.array?.compactMap(\.string) ?? [])
    }

    /// An inline object's own name: its `title` (GitHub's inline copies of a user say
    /// `title: Simple User`), so a type several operations share is not named after the first
    /// that used it. Only a title of two words or more whose name is free: a one-word title is
    /// usually the property's own name (FastAPI's), and a taken one would need a number.
    private func titledName(_ schema: DocumentObject) -> String? {
        guard let title = schema["title"]?.string, SwiftNames.words(title).count > 1 else { return nil }
        var name = SwiftNames.typeName(title)
        if SwiftNames.reservedTypeNames.contains(name) { name = typePrefix + name }
        guard !takenTypeNames.contains(name) else { return nil }
        takenTypeNames.insert(name)
        return name
    }

    private func declarationName(_ name: String, isComponent: Bool) -> String {
        isComponent ? name : newTypeName(name)
    }

    private func structure(
        properties groups: [(DocumentObject, JSONPointer)], required: Set<String>, schema: DocumentObject, at pointer: JSONPointer,
        name: String, isComponent: Bool
    ) -> SwiftTypeReference {
        let typeName = isComponent ? name : titledName(schema) ?? declarationName(name, isComponent: false)
        var declaration = StructDeclaration(
            name: typeName, summary: SwiftNames.documentation(schema["description"]?.string ?? schema["title"]?.string), pointer: pointer,
            properties: [])
        var takenMembers: Set<String> = ["init", "CodingKeys"]
        var seenKeys: Set<String> = []
        for (properties, propertiesPointer) in groups {
            for (key, propertySchema) in properties.members where !seenKeys.contains(key) {
                seenKeys.insert(key)
                let propertyName = SwiftNames.unique(SwiftNames.propertyName(key), in: &takenMembers)
                let (propertyType, nullable) = type(
                    of: propertySchema, at: propertiesPointer.appending(key), name: typeName + SwiftNames.typeName(key))
                let description = propertySchema["description"]?.string ?? resolve(propertySchema, at: pointer)?.0["description"]?.string
                declaration.properties.append(
                    .init(
                        key: key, name: propertyName, type: propertyType, isOptional: nullable || !required.contains(key),
                        writesNull: nullable && required.contains(key),
                        isDeprecated: propertySchema["deprecated"]?.bool == true, summary: SwiftNames.documentation(description)))
            }
        }
        structs.append(declaration)
        return .model(typeName)
    }

    /// allOf of objects becomes one struct with every part's properties; a lone `$ref` (often used
    /// to add a description or `nullable` to a reference) is that type.
    private func allOf(_ members: [DocumentValue], schema: DocumentObject, at pointer: JSONPointer, name: String, isComponent: Bool)
        -> SwiftTypeReference
    {
        if members.count == 1, schema["properties"] == nil {
            return type(of: members[0], at: pointer.appending("allOf").appending("0"), name: name, isComponent: isComponent).0
        }
        var groups: [(DocumentObject, JSONPointer)] = []
        var required = requiredKeys(schema)
        var skipped = false
        func collect(_ value: DocumentValue, at memberPointer: JSONPointer, depth: Int) {
            guard depth < 16, let (resolved, resolvedPointer) = resolve(value, at: memberPointer), let object = resolved.object else {
                skipped = true
                return
            }
            required.formUnion(requiredKeys(object))
            if let properties = object["properties"]?.object { groups.append((properties, resolvedPointer.appending("properties"))) }
            for (index, part) in (object["allOf"]?.array ?? []).enumerated() {
                collect(part, at: resolvedPointer.appending("allOf").appending(String(index)), depth: depth + 1)
            }
            if object["oneOf"] != nil || object["anyOf"] != nil { skipped = true }
        }
        if let properties = schema["properties"]?.object { groups.append((properties, pointer.appending("properties"))) }
        for (index, member) in members.enumerated() {
            collect(member, at: pointer.appending("allOf").appending(String(index)), depth: 0)
        }
        if skipped {
            warn(pointer, "allOf with a part that is not an object schema: only the object parts' properties are generated")
        }
        guard !groups.isEmpty else { return .dictionary(.json) }
        return structure(properties: groups, required: required, schema: schema, at: pointer, name: name, isComponent: isComponent)
    }

    private func openEnum(_ values: [String], schema: DocumentObject, name: String, isComponent: Bool) -> SwiftTypeReference {
        let typeName = declarationName(name, isComponent: isComponent)
        var taken: Set<String> = ["rawValue", "init", "hashValue", "allCases", "self", "Self", "Type", "Protocol"]
        var seenValues: Set<String> = []
        var constants: [(String, String)] = []
        for value in values where seenValues.insert(value).inserted {
            // A sign is the only difference between `+1` and `-1`, so it becomes a word.
            let signed = value.hasPrefix("+") ? "plus " + value.dropFirst() : value.hasPrefix("-") ? "minus " + value.dropFirst() : value
            let base = value.isEmpty ? "empty" : SwiftNames.memberName(signed)
            constants.append((SwiftNames.unique(base, in: &taken), value))
        }
        openEnums.append(
            OpenEnumDeclaration(name: typeName, summary: SwiftNames.documentation(schema["description"]?.string), values: constants))
        return .openEnum(typeName)
    }

    private func choice(
        _ members: [DocumentValue], keyword: String, schema: DocumentObject, at pointer: JSONPointer, name: String, isComponent: Bool
    ) -> SwiftTypeReference {
        let typeName = declarationName(name, isComponent: isComponent)
        var declaration = ChoiceDeclaration(
            name: typeName, summary: SwiftNames.documentation(schema["description"]?.string), discriminator: nil, alternatives: [])
        let discriminator = schema["discriminator"]?["propertyName"]?.string
        declaration.discriminator = discriminator
        var mapping: [String: [String]] = [:]
        for (value, target) in schema["discriminator"]?["mapping"]?.object?.members ?? [] {
            if let target = target.string {
                // A mapping may name a component instead of giving a $ref.
                let reference = target.hasPrefix("#") ? target : "#/components/schemas/" + target
                mapping[reference, default: []].append(value)
            }
        }
        var takenCases: Set<String> = ["init", "self", "Self", "Type", "Protocol"]
        var seenTypes: Set<SwiftTypeReference> = []
        for (index, member) in members.enumerated() {
            let memberPointer = pointer.appending(keyword).appending(String(index))
            let reference = member["$ref"]?.string
            let referencedName = reference.flatMap { JSONPointer(reference: $0)?.tokens.last }
            let label = reference == nil ? Self.inlineAlternativeLabel(member, among: members) : nil
            let (memberType, _) = type(
                of: member, at: memberPointer,
                name: typeName + (referencedName.map(SwiftNames.typeName) ?? label.map(SwiftNames.typeName) ?? "Case\(index + 1)"))
            guard seenTypes.insert(memberType).inserted else {
                warn(memberPointer, "a second alternative of the same Swift type is folded into the first")
                continue
            }
            let caseBase: String
            if let referencedName {
                caseBase = SwiftNames.memberName(referencedName)
            } else if let label, case .model = memberType {
                caseBase = SwiftNames.memberName(label)
            } else {
                caseBase = caseName(for: memberType, index: index)
            }
            var values: [String] = []
            if let discriminator, let reference {
                if let mapped = mapping[reference] {
                    values = mapped
                } else {
                    // Without a mapping, OpenAPI says the value is the component's name, but
                    // servers send what the alternative declares (`type: {enum: [function]}` for
                    // `FunctionCall`): both select it.
                    values = discriminatorConstants(of: member, property: discriminator, at: memberPointer)
                    if let referencedName, !values.contains(referencedName) { values.append(referencedName) }
                }
            }
            declaration.alternatives.append(
                .init(caseName: SwiftNames.unique(caseBase, in: &takenCases), type: memberType, discriminatorValues: values))
        }
        if discriminator != nil, declaration.alternatives.contains(where: \.discriminatorValues.isEmpty) {
            warn(pointer, "discriminator with inline alternatives: those are decoded by trying each in turn")
        }
        if discriminator != nil {
            declaration.unknownCase = SwiftNames.unique("unknown", in: &takenCases)
        }
        choices.append(declaration)
        return .model(typeName)
    }

    /// A name for an inline object alternative, so it is not `…Case2`: its `title`, else its first
    /// property (required ones first) that no other alternative declares; `nil` when it has
    /// neither.
    static func inlineAlternativeLabel(_ member: DocumentValue, among members: [DocumentValue]) -> String? {
        guard let object = member.object else { return nil }
        if let title = object["title"]?.string, !SwiftNames.words(title).isEmpty { return title }
        guard let properties = object["properties"]?.object else { return nil }
        let required = object["required"]?.array?.compactMap(\.string) ?? []
        var othersKeys: Set<String> = []
        var otherObjects = 0
        for other in members where other != member {
            guard let keys = other["properties"]?.object?.keys ?? (other["$ref"] != nil ? [] : nil) else { continue }
            otherObjects += 1
            othersKeys.formUnion(keys)
        }
        // Beside scalars only (`oneOf [string, {id, name}]`), it is the object form.
        if otherObjects == 0 { return "object" }
        let ordered = required.filter { properties.keys.contains($0) } + properties.keys.filter { !required.contains($0) }
        return ordered.first { !othersKeys.contains($0) && !SwiftNames.words($0).isEmpty }
    }

    /// The values an alternative allows for the discriminator property: a single-value `enum` or
    /// a `const`, in its own properties or in those of its `allOf` parts.
    private func discriminatorConstants(of member: DocumentValue, property: String, at pointer: JSONPointer) -> [String] {
        var found: [String] = []
        func visit(_ value: DocumentValue, at valuePointer: JSONPointer, depth: Int) {
            guard depth < 8, let (resolved, resolvedPointer) = resolve(value, at: valuePointer), let object = resolved.object else {
                return
            }
            if let schema = object["properties"]?[property],
                let (propertySchema, _) = resolve(schema, at: resolvedPointer.appending("properties").appending(property))
            {
                if let constant = propertySchema["const"]?.string {
                    found.append(constant)
                } else if let values = propertySchema["enum"]?.array, values.count == 1, let only = values[0].string {
                    found.append(only)
                }
            }
            for (index, part) in (object["allOf"]?.array ?? []).enumerated() {
                visit(part, at: resolvedPointer.appending("allOf").appending(String(index)), depth: depth + 1)
            }
        }
        visit(member, at: pointer, depth: 0)
        var unique: [String] = []
        for value in found where !unique.contains(value) { unique.append(value) }
        return unique
    }

    private func caseName(for type: SwiftTypeReference, index: Int) -> String {
        switch type {
        case .builtin(let name): name.lowercased()
        case .date: "date"
        case .model(let name), .openEnum(let name): SwiftNames.memberName(name)
        case .array: "array"
        case .dictionary: "object"
        case .json, .optional: "case\(index + 1)"
        }
    }
}
