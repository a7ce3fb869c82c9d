/// The keys leading to the value a call asked for with `at:`, set only while one body is decoded.
/// A task-local rather than the decoder's `userInfo`, because an endpoint may share one decoder
/// between calls running at the same time.
enum NestedValueKeys {
    @TaskLocal static var keys: [String] = []

    /// `"data.items"` as `["data", "items"]`; `nil` when a part is empty (`"data..items"`, `"."`).
    static func parse(_ keyPath: String) -> [String]? {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return keys.contains(where: \.isEmpty) ? nil : keys
    }
}

/// Decodes the value under ``NestedValueKeys/keys`` as `Value`, so a caller needs no envelope type
/// for `{"items": [...]}`; a missing key fails with its coding path like any other decoding error.
struct NestedValue<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        let keys = NestedValueKeys.keys
        guard let last = keys.last else {
            value = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: NamedKey.self)
        for key in keys.dropLast() {
            container = try container.nestedContainer(keyedBy: NamedKey.self, forKey: NamedKey(key))
        }
        value = try container.decode(Value.self, forKey: NamedKey(last))
    }

    /// A key of the caller's key path: written in code, so error texts may show it.
    private struct NamedKey: CodingKey, NamedInCode {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
