/// Writes the model declarations as Swift, storing the properties of recursive schemas out of line.
struct ModelRenderer {
    let api: String
    let access: String
    let includeDocumentation: Bool
    /// The generated types a request body holds (directly or nested): only these write a required,
    /// nullable property as `null`; the others are only decoded, and a custom `encode(to:)` for each
    /// would add thousands of lines to a large document (GitHub's) for nothing.
    var requestTypes: Set<String> = []

    /// Each model declaration as one block of text, in document order of reading.
    func render(_ translator: SchemaTranslator) -> (blocks: [String], usesIndirect: Bool) {
        let cyclic = CycleFinder(structs: translator.structs, choices: translator.choices)
        var blocks: [String] = []
        var usesIndirect = false
        for alias in translator.aliases {
            blocks.append(doc(alias.summary, indent: "") + "\(access)typealias \(alias.name) = \(alias.type.code(service: api))\n")
        }
        for declaration in translator.openEnums {
            blocks.append(openEnum(declaration))
        }
        for declaration in translator.structs {
            let (text, indirect) = structure(declaration, cyclic: cyclic)
            usesIndirect = usesIndirect || indirect
            blocks.append(text)
        }
        let keysByStruct = Dictionary(
            translator.structs.map { ($0.name, $0.properties.map(\.key)) }, uniquingKeysWith: { first, _ in first })
        for declaration in translator.choices {
            blocks.append(choice(declaration, isIndirect: cyclic.isRecursive(declaration), keysByStruct: keysByStruct))
        }
        return (blocks, usesIndirect)
    }

    /// The description as a doc comment, every line of it.
    private func doc(_ summary: String?, indent: String) -> String {
        guard includeDocumentation, let summary else { return "" }
        return summary.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.isEmpty ? "\(indent)///\n" : "\(indent)/// \($0)\n"
        }.joined()
    }

    private func openEnum(_ declaration: OpenEnumDeclaration) -> String {
        var text = doc(declaration.summary, indent: "")
        text += "\(access)struct \(declaration.name): RawRepresentable, Codable, Sendable, Hashable {\n"
        for (name, value) in declaration.values {
            text += "    \(access)static let \(SwiftNames.escaped(name)) = \(declaration.name)(rawValue: \(SwiftNames.literal(value)))\n"
        }
        text += "    \(access)let rawValue: String\n"
        text += "    \(access)init(rawValue: String) { self.rawValue = rawValue }\n"
        return text + "}\n"
    }

    /// The stored property behind `property`: its own name, or `_name` for a deprecated one, whose
    /// public name is a computed property marked deprecated (the initializer and the coding keys
    /// use the stored one, so the generated code itself raises no deprecation warning).
    private func storedName(_ property: StructDeclaration.Property) -> String {
        property.isDeprecated ? "_" + property.name : property.name
    }

    private func structure(_ declaration: StructDeclaration, cyclic: CycleFinder) -> (String, Bool) {
        var text = doc(declaration.summary, indent: "")
        text += "\(access)struct \(declaration.name): Codable, Sendable, Hashable {\n"
        var usesIndirect = false
        var parameters: [String] = []
        for property in declaration.properties {
            let typeCode = property.type.code(service: api) + (property.isOptional ? "?" : "")
            let name = SwiftNames.escaped(property.name)
            text += doc(property.summary, indent: "    ")
            let isIndirect = property.type.directModel.map { cyclic.sameCycle($0, declaration.name) } ?? false
            usesIndirect = usesIndirect || isIndirect
            let wrapper = isIndirect ? "@\(api).Indirect " : ""
            if property.isDeprecated {
                let stored = storedName(property)
                text += "    @available(*, deprecated, message: \"deprecated in the API's OpenAPI document\")\n"
                text += "    \(access)var \(name): \(typeCode) {\n        get { \(stored) }\n        set { \(stored) = newValue }\n    }\n"
                text += "    \(wrapper)var \(stored): \(typeCode)\n"
            } else {
                text += "    \(wrapper)\(access)var \(name): \(typeCode)\n"
            }
            parameters.append("\(name): \(typeCode)\(property.isOptional ? " = nil" : "")")
        }
        text += "    \(access)init(\(parameters.joined(separator: ", "))) {\n"
        for property in declaration.properties {
            text += "        self.\(SwiftNames.escaped(storedName(property))) = \(SwiftNames.escaped(property.name))\n"
        }
        text += "    }\n"
        if requestTypes.contains(declaration.name), declaration.properties.contains(where: \.writesNull) {
            // The synthesized encoding leaves a nil optional out; a required one must be sent as null.
            text += "    \(access)func encode(to encoder: any Encoder) throws {\n"
            text += "        var container = encoder.container(keyedBy: CodingKeys.self)\n"
            for property in declaration.properties {
                let name = SwiftNames.escaped(storedName(property))
                let method = property.isOptional && !property.writesNull ? "encodeIfPresent" : "encode"
                text += "        try container.\(method)(\(name), forKey: .\(name))\n"
            }
            text += "    }\n"
        }
        if declaration.properties.contains(where: { storedName($0) != $0.key }) {
            text += "    enum CodingKeys: String, CodingKey {\n"
            for property in declaration.properties {
                let name = SwiftNames.escaped(storedName(property))
                text +=
                    storedName(property) == property.key
                    ? "        case \(name)\n" : "        case \(name) = \(SwiftNames.literal(property.key))\n"
            }
            text += "    }\n"
        }
        return (text + "}\n", usesIndirect)
    }

    /// Decoding by trying objects: the first alternative may decode (its properties optional) and
    /// drop the fields of a richer one, so each alternative that decodes is scored by how many of
    /// the keys present it declares; the highest wins, the earlier one on a tie, and one that
    /// declares every key present is taken at once.
    private func bestMatch(_ tried: [ChoiceDeclaration.Alternative], declaration: ChoiceDeclaration, keysByStruct: [String: [String]])
        -> String
    {
        var text =
            "        let keys = Set((try? decoder.container(keyedBy: \(api).AnyCodingKey.self))?.allKeys.map(\\.stringValue) ?? [])\n"
        text += "        var best: (value: Self, score: Int)?\n"
        text += "        var errors: [any Error] = []\n"
        for alternative in tried {
            let decode =
                "Self.\(SwiftNames.escaped(alternative.caseName))(try decoder.singleValueContainer().decode(\(alternative.type.code(service: api)).self))"
            let declared = alternative.type.directModel.flatMap { keysByStruct[$0] } ?? []
            let score = declared.isEmpty ? "0" : "keys.intersection([\(declared.map(SwiftNames.literal).joined(separator: ", "))]).count"
            text += "        do {\n"
            text += "            let value = \(decode)\n"
            text += "            let score = \(score)\n"
            // Every key accounted for: no later alternative can do better.
            text += "            if score == keys.count {\n                self = value\n                return\n            }\n"
            text += "            if score > (best?.score ?? -1) { best = (value, score) }\n"
            text += "        } catch {\n            errors.append(error)\n        }\n"
        }
        text += "        if let best {\n            self = best.value\n            return\n        }\n"
        text +=
            "        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: \"no alternative of \(declaration.name) matched: \\(errors)\"))\n"
        return text
    }

    private func choice(_ declaration: ChoiceDeclaration, isIndirect: Bool, keysByStruct: [String: [String]]) -> String {
        var text = doc(declaration.summary, indent: "")
        text += "\(access)\(isIndirect ? "indirect " : "")enum \(declaration.name): Codable, Sendable, Hashable {\n"
        for alternative in declaration.alternatives {
            text += "    case \(SwiftNames.escaped(alternative.caseName))(\(alternative.type.code(service: api)))\n"
        }
        if let unknown = declaration.unknownCase, let discriminator = declaration.discriminator {
            text += "    /// A `\(discriminator)` no alternative declares (one added to the API later): the value as it came.\n"
            text += "    case \(SwiftNames.escaped(unknown))(\(api).JSONValue)\n"
        }
        text += "    \(access)init(from decoder: any Decoder) throws {\n"
        let tried = declaration.alternatives.filter { declaration.discriminator == nil || $0.discriminatorValues.isEmpty }
        if let discriminator = declaration.discriminator {
            text += "        let container = try decoder.container(keyedBy: \(api).AnyCodingKey.self)\n"
            text +=
                "        switch try container.decodeIfPresent(String.self, forKey: \(api).AnyCodingKey(\(SwiftNames.literal(discriminator)))) {\n"
            for alternative in declaration.alternatives where !alternative.discriminatorValues.isEmpty {
                let labels = alternative.discriminatorValues.map { SwiftNames.literal($0) + "?" }.joined(separator: ", ")
                text +=
                    "        case \(labels): self = .\(SwiftNames.escaped(alternative.caseName))(try decoder.singleValueContainer().decode(\(alternative.type.code(service: api)).self)); return\n"
            }
            text += "        default: break\n        }\n"
        }
        if let unknown = declaration.unknownCase, tried.isEmpty {
            text += "        self = .\(SwiftNames.escaped(unknown))(try \(api).JSONValue(from: decoder))\n"
        } else if tried.isEmpty {
            text +=
                "        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: \"unknown \(declaration.discriminator ?? "") value for \(declaration.name)\"))\n"
        } else if tried.filter({ $0.type.directModel.flatMap { keysByStruct[$0] } != nil }).count > 1 {
            text += bestMatch(tried, declaration: declaration, keysByStruct: keysByStruct)
        } else {
            text += "        var errors: [any Error] = []\n"
            for alternative in tried {
                text +=
                    "        do { self = .\(SwiftNames.escaped(alternative.caseName))(try decoder.singleValueContainer().decode(\(alternative.type.code(service: api)).self)); return } catch { errors.append(error) }\n"
            }
            text +=
                "        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: \"no alternative of \(declaration.name) matched: \\(errors)\"))\n"
        }
        text += "    }\n"
        text += "    \(access)func encode(to encoder: any Encoder) throws {\n"
        text += "        var container = encoder.singleValueContainer()\n"
        text += "        switch self {\n"
        for alternative in declaration.alternatives {
            text += "        case .\(SwiftNames.escaped(alternative.caseName))(let value): try container.encode(value)\n"
        }
        if let unknown = declaration.unknownCase {
            text += "        case .\(SwiftNames.escaped(unknown))(let value): try container.encode(value)\n"
        }
        text += "        }\n    }\n"
        return text + "}\n"
    }
}

/// Finds the generated types that contain themselves without an array or dictionary in between
/// (Tarjan's strongly connected components): such a property must be stored out of line, or the
/// struct would have infinite size.
struct CycleFinder {
    private var component: [String: Int] = [:]
    private var selfLoops: Set<String> = []

    init(structs: [StructDeclaration], choices: [ChoiceDeclaration]) {
        var edges: [String: [String]] = [:]
        for declaration in structs {
            edges[declaration.name] = declaration.properties.compactMap(\.type.directModel)
        }
        for declaration in choices {
            edges[declaration.name] = declaration.alternatives.compactMap(\.type.directModel)
        }
        for (node, targets) in edges where targets.contains(node) { selfLoops.insert(node) }
        var index = 0
        var indices: [String: Int] = [:]
        var lowLinks: [String: Int] = [:]
        var stack: [String] = []
        var onStack: Set<String> = []
        var componentCount = 0
        var found: [String: Int] = [:]
        func connect(_ node: String) {
            indices[node] = index
            lowLinks[node] = index
            index += 1
            stack.append(node)
            onStack.insert(node)
            for target in edges[node] ?? [] {
                if indices[target] == nil {
                    connect(target)
                    lowLinks[node] = min(lowLinks[node] ?? 0, lowLinks[target] ?? 0)
                } else if onStack.contains(target) {
                    lowLinks[node] = min(lowLinks[node] ?? 0, indices[target] ?? 0)
                }
            }
            if lowLinks[node] == indices[node] {
                var members: [String] = []
                while let top = stack.popLast() {
                    onStack.remove(top)
                    members.append(top)
                    if top == node { break }
                }
                if members.count > 1 {
                    for member in members { found[member] = componentCount }
                }
                componentCount += 1
            }
        }
        for node in edges.keys.sorted() where indices[node] == nil {
            connect(node)
        }
        component = found
    }

    /// Whether `target` can reach back to `owner` through direct containment.
    func sameCycle(_ target: String, _ owner: String) -> Bool {
        if target == owner { return selfLoops.contains(owner) }
        guard let first = component[target], let second = component[owner] else { return false }
        return first == second
    }

    func isRecursive(_ choice: ChoiceDeclaration) -> Bool {
        choice.alternatives.contains { $0.type.directModel.map { sameCycle($0, choice.name) } ?? false }
    }
}
