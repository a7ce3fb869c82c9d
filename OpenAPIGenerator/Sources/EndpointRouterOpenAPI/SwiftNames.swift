import Foundation

/// Turns names from a document into Swift identifiers: words split on anything that is not a
/// letter or digit, keywords escaped, a leading digit prefixed.
enum SwiftNames {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal",
        "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_", "Type", "Protocol",
        "associativity", "convenience", "dynamic", "didSet", "final", "get", "infix", "indirect", "lazy", "left",
        "mutating", "none", "nonmutating", "optional", "override", "postfix", "precedence", "prefix", "required",
        "right", "set", "unowned", "weak", "willSet", "some", "any", "actor", "async", "consume", "copy", "borrowing",
        "consuming", "package", "macro",
    ]

    /// Type names a generated type must not take: they would shadow Swift, Foundation or
    /// EndpointRouter inside the generated module (`Error` is the classic: `struct Error` breaks
    /// every `throws` that means Swift.Error).
    static let reservedTypeNames: Set<String> = [
        "Error", "Type", "Protocol", "Self", "Any", "AnyObject", "Data", "Date", "URL", "UUID", "String", "Int", "Int32",
        "Int64", "Double", "Float", "Bool", "Array", "Dictionary", "Set", "Optional", "Result", "Character", "Void", "Never",
        "Task", "Decimal", "Codable", "Decodable", "Encodable", "Sendable", "Hashable", "Equatable", "Decoder", "Encoder",
        "JSONDecoder", "JSONEncoder", "Locale", "Calendar", "TimeZone", "Range", "Duration", "Object", "Collection",
        "Sequence", "Identifiable", "Error", "HTTPClient", "HTTPClientError", "RequestMethod", "HeaderFields", "OutgoingRequest",
        "IncomingResponse", "ResponseHead", "HTTPMiddleware", "HTTPTransport", "EndpointBody", "CallContext",
        "EmptyResponse", "EndpointResponse", "Credential", "CredentialStore", "CredentialRefresh", "QueryStyle",
        "ParameterEncoding", "MultipartFormData", "ResponseStream", "ServerSentEvent", "AuthorizationMiddleware",
        "StatusCodeSet", "EndpointOptions", "RedirectPolicy", "Response", "Request", "Foundation", "EndpointRouter",
        "JSONValue", "Indirect", "CodingKeys", "Element", "Key", "Value", "DecodingError", "EncodingError", "Hasher", "NSLock",
        "UTF8", "CodingKey", "RawRepresentable", "AnyCodingKey", "Configuration", "Credentials", "Swift",
    ]

    /// The words of `raw`: `get_user-byID` → `get`, `user`, `byID`; `HTTPServer` stays one word.
    static func words(_ raw: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in raw {
            if character.isLetter || character.isNumber, character.isASCII {
                // A lower-to-upper change starts a word, so `userID` → `user`, `ID`.
                if let previous, previous.isLowercase, character.isUppercase, !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `pet-status` → `PetStatus`; `2fa` → `_2fa`; empty → `Unnamed`.
    static func typeName(_ raw: String) -> String {
        let joined = words(raw).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        guard let first = joined.first else { return "Unnamed" }
        return first.isNumber ? "_" + joined : joined
    }

    /// `Pet-Status` → `petStatus`; `ID` → `id`; `URLs` → `urls`; keywords in backticks.
    static func memberName(_ raw: String) -> String {
        let parts = words(raw)
        guard let head = parts.first else { return "_unnamed" }
        let first = lowercasedLeadingWord(head)
        let joined = first + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if joined.first?.isNumber == true { return "_" + joined }
        return joined
    }

    /// A stored property's name: as ``memberName(_:)``, but never one that an initializer parameter
    /// could not take (`self` would shadow the instance being initialized).
    static func propertyName(_ raw: String) -> String {
        let name = memberName(raw)
        return ["self", "Self", "super", "init", "Type", "Protocol", "deinit", "subscript", "hashValue"].contains(name)
            ? name + "Value" : name
    }

    /// `URL` → `url`, `URLs` → `urls`, `HTTPServer` → `httpServer`, `Pet` → `pet`.
    private static func lowercasedLeadingWord(_ word: String) -> String {
        let characters = Array(word)
        var upperRun = 0
        while upperRun < characters.count, characters[upperRun].isUppercase { upperRun += 1 }
        if upperRun <= 1 { return word.prefix(1).lowercased() + word.dropFirst() }
        if upperRun == characters.count { return word.lowercased() }
        // Keep the last capital of the run for the next word: HTTPServer → http + Server.
        let lowerCount = characters[upperRun].isLetter ? upperRun - 1 : upperRun
        if upperRun == characters.count - 1, characters.last == "s" { return word.lowercased() }
        return String(characters[..<lowerCount]).lowercased() + String(characters[lowerCount...])
    }

    /// The identifier as written in declarations and uses: keywords in backticks.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `name`, or `name2`, `name3`… until it is not in `taken`; records the result.
    static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        var number = 2
        while taken.contains(candidate) {
            candidate = name + String(number)
            number += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// `text` inside a Swift string literal.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// A whole description as doc-comment text: its lines without trailing spaces, runs of blank
    /// lines as one, no blank line at either end. The reader of a model needs the whole of it
    /// (the first line of GitHub's descriptions is often half a sentence).
    static func documentation(_ text: String?) -> String? {
        guard let text else { return nil }
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            var line = String(raw)
            while let last = line.last, last.isWhitespace { line.removeLast() }
            if line.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// The first sentence-ish line of a description, safe inside a `///` comment.
    static func summary(_ text: String?) -> String? {
        guard let text else { return nil }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !line.isEmpty else { return nil }
        return line.count > 200 ? String(line.prefix(197)) + "..." : line
    }
}
