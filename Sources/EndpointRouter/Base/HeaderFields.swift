/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Unlike `HTTPURLResponse.allHeaderFields`, which is a case-sensitive dictionary, this type keeps
/// every field in order, allows repeated names, and finds a field whatever its casing:
///
/// ```swift
/// let type = response.headers["content-type"]      // "application/json"
/// let cookies = response.headers.values(for: "Set-Cookie")
/// ```
public struct HeaderFields: Sendable, Hashable {
    /// One header field: a name as written and its value.
    public struct Field: Sendable, Hashable {
        /// The field name, with its original casing.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates an empty list.
    public init() { fields = [] }

    /// Creates a list from fields, keeping their order and repeats.
    public init(_ fields: [Field]) { self.fields = fields }

    /// Creates a list from a dictionary; fields are ordered by name so the result is deterministic.
    public init(_ dictionary: [String: String]) {
        fields = dictionary.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { Field(name: $0.key, value: $0.value) }
    }

    /// The value of the field named `name` (any casing), or `nil`.
    ///
    /// Repeated fields are joined with `", "`, as RFC 9110 allows; read `Set-Cookie` with
    /// ``values(for:)`` instead, because cookie dates contain commas. Setting a value replaces every
    /// field of that name; setting `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            // No array in between: this is read several times per request, mostly for one field.
            var found: String?
            for field in fields where field.name.caseInsensitiveEquals(name) {
                found = found.map { $0 + ", " + field.value } ?? field.value
            }
            return found
        }
        set {
            if let newValue {
                replace(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// Every value of the fields named `name` (any casing), in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map { $0.value }
    }

    /// Whether a field named `name` (any casing) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field, at the position of the first.
    public mutating func replace(name: String, value: String) {
        guard let first = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) else {
            return add(name: name, value: value)
        }
        fields[first] = Field(name: name, value: value)
        fields[(first + 1)...].removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Removes every field named `name` (any casing).
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The fields as a dictionary; repeated names are joined with `", "`, names keep their first casing.
    public var dictionary: [String: String] { merged(separator: ", ") }

    /// The fields as a dictionary keyed by each name's first casing, the values of names equal once
    /// lower-cased joined with `separator`.
    func merged(separator: String) -> [String: String] {
        // A request has a handful of fields: comparing names in place costs less than a second
        // dictionary keyed by lower-cased copies; past that many, hashing wins.
        guard fields.count > 16 else {
            var firsts: [Field] = []
            firsts.reserveCapacity(fields.count)
            for field in fields {
                if let index = firsts.firstIndex(where: { $0.name.hasSameLowercase(as: field.name) }) {
                    firsts[index].value += separator + field.value
                } else {
                    firsts.append(field)
                }
            }
            var result = [String: String](minimumCapacity: firsts.count)
            for field in firsts { result[field.name] = field.value }
            return result
        }
        var result: [String: String] = [:]
        var canonical: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let name = canonical[key], let existing = result[name] {
                result[name] = existing + separator + field.value
            } else {
                canonical[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }
}

extension HeaderFields: Sequence {
    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension HeaderFields: ExpressibleByDictionaryLiteral {
    /// Creates a list from a literal, keeping the literal's order: `["Accept": "text/plain"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }
}

extension String {
    /// Whether both have as many UTF-8 bytes and the same `lowercased()` form.
    ///
    /// Header names are ASCII, where lower-casing is a fold of `A`–`Z`: compared byte by byte without
    /// building two lower-cased copies. Any other text takes `lowercased()`, so the answer is the same.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // The bytes read in place (a native string's are contiguous already): the zip over two
        // UTF8Views this replaced cost about 1,300 instructions per request(type:).
        var (mine, theirs) = (self, other)
        let folded = mine.withUTF8 { mine in theirs.withUTF8 { theirs in Self.asciiFold(mine, equals: theirs) } }
        return folded ?? (lowercased() == other.lowercased())
    }

    /// Whether two texts of as many bytes are equal once `A`–`Z` are folded; `nil` when either holds
    /// a byte that is not ASCII.
    private static func asciiFold(_ mine: UnsafeBufferPointer<UInt8>, equals theirs: UnsafeBufferPointer<UInt8>) -> Bool? {
        var equal = true
        for index in mine.indices {
            let (byte, other) = (mine[index], theirs[index])
            guard byte | other < 0x80 else { return nil }
            if equal, byte != other { equal = asciiLowercase(byte) == asciiLowercase(other) }
        }
        return equal
    }

    /// Whether `lowercased()` gives equal strings, whatever their lengths.
    func hasSameLowercase(as other: String) -> Bool {
        if utf8.count == other.utf8.count { return caseInsensitiveEquals(other) }
        // Lower-casing keeps the length of ASCII text: two ASCII texts of different lengths differ.
        if utf8.allSatisfy({ $0 < 0x80 }), other.utf8.allSatisfy({ $0 < 0x80 }) { return false }
        return lowercased() == other.lowercased()
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
