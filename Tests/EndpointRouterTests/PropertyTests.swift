import Foundation
import Testing

@testable import EndpointRouter

extension Serialized {
    /// Random inputs, seeded and reproducible: parameters through query, form and JSON decode back to
    /// exactly the input; hosts, paths, endpoints and segments build a URL with exactly the declared host
    /// and number of segments, or a typed error.
    ///
    /// `PROPERTY_SEED` replays a run; `PROPERTY_COUNT` sets the inputs per property: 1,000 by default,
    /// so the suite stays fast in debug builds; CI runs 10,000 (`PROPERTY_COUNT=10000`).
    /// A failure prints the seed of the failing input; add it to `regressionSeeds` to keep it as a case.
    /// In `Serialized` because each property keeps a core busy for seconds, which would skew the
    /// timing suites running next to it on a 2-core machine.
    @Suite("Properties")
    struct PropertyTests {
        static let environment = ProcessInfo.processInfo.environment
        static let runSeed = UInt64(environment["PROPERTY_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        static let count = Int(environment["PROPERTY_COUNT"] ?? "") ?? 1_000

        /// Input seeds that once failed, kept as regular cases: numbers `JSONSerialization` hands over
        /// as `NSDecimalNumber` (`-1.99e-54`, `1338787000000000.0`), and its U+FEFF reading.
        static let regressionSeeds: [UInt64] = [
            6_536_167_954_961_926_052, 10_451_216_379_200_822_465, 10_905_525_725_756_348_110,
            2_364_838_207_522_499_617, 14_698_250_935_461_419_569, 4_277_041_920_339_989_686,
        ]

        /// The seed of input `index` of a run: mixed, so neighbouring inputs share no stream.
        static func inputSeed(run: UInt64, index: Int) -> UInt64 {
            var mixer = SeededGenerator(state: run ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
            return mixer.next()
        }

        /// Runs `property` on `count` inputs, stopping at the first that fails.
        static func check(_ name: String, count: Int, run: UInt64, _ property: (inout SeededGenerator) throws -> String?) rethrows {
            for index in 0..<count {
                let seed = inputSeed(run: run, index: index)
                var random = SeededGenerator(state: seed)
                if let failure = try property(&random) {
                    Issue.record("\(name): input seed \(seed) (PROPERTY_SEED=\(run), input \(index)) failed: \(failure)")
                    return
                }
            }
        }

        // MARK: Parameters

        @Test func parametersDecodeBackToTheInput() throws {
            let start = ContinuousClock.now
            try Self.check("parameters", count: Self.count, run: Self.runSeed, ParameterProperty.check)
            print("parameters: \(Self.count) inputs in \(ContinuousClock.now - start) (PROPERTY_SEED=\(Self.runSeed))")
        }

        @Test(arguments: regressionSeeds)
        func parametersRegression(_ seed: UInt64) throws {
            var random = SeededGenerator(state: seed)
            let failure = try ParameterProperty.check(&random)
            #expect(failure == nil, "\(failure ?? "")")
        }

        // MARK: URLs

        @Test func urlsKeepTheirHostAndSegmentCount() throws {
            let start = ContinuousClock.now
            try Self.check("urls", count: Self.count, run: Self.runSeed, URLProperty.check)
            print("urls: \(Self.count) inputs in \(ContinuousClock.now - start) (PROPERTY_SEED=\(Self.runSeed))")
        }

        @Test(arguments: regressionSeeds)
        func urlsRegression(_ seed: UInt64) throws {
            var random = SeededGenerator(state: seed)
            let failure = try URLProperty.check(&random)
            #expect(failure == nil, "\(failure ?? "")")
        }
    }
}

extension RandomNumberGenerator {
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }
}

private func scalar(_ value: UInt32) -> Unicode.Scalar { Unicode.Scalar(value) ?? "?" }

/// The value of one hexadecimal digit.
func hexValue(_ byte: UInt8) -> UInt8? {
    guard let value = UInt8(String(UnicodeScalar(byte)), radix: 16), Character(UnicodeScalar(byte)).isHexDigit else { return nil }
    return value
}

/// Strict percent-decoding written for the tests: every `%` must start an escape, the bytes must be
/// UTF-8, and `+` is a plus (the library never writes a space as `+`).
func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        if byte == UInt8(ascii: "%") {
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        } else {
            bytes.append(byte)
        }
    }
    return String(validating: bytes, as: UTF8.self)
}

// MARK: - Parameters

/// A parameter value as the generator knows it, independent of how it is boxed.
indirect enum ParameterModel {
    enum IntegerType: CaseIterable { case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64 }
    case string(String)
    case signed(Int64, IntegerType)
    case unsigned(UInt64, IntegerType)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case null
    case absent
    case array([ParameterModel])
    case dictionary([String: ParameterModel])
}

/// How the generated values reach the library: Swift values, `NSNumber`s, or a dictionary parsed by
/// `JSONSerialization` from JSON text the test writes itself.
enum Boxing: CaseIterable { case swift, nsNumber, jsonSerialization }

/// The shape of parameters a query style can carry without ambiguity.
enum QueryShape {
    /// Brackets: nested dictionaries, arrays of scalars; no `[` or `]` in keys, no empty nested keys
    /// (`k[]` would read as an array).
    case brackets
    /// Repeated keys or commas: top-level scalars and arrays of scalars, any key.
    case flat
}

enum ParameterProperty {
    /// No U+FEFF: JSONSerialization on Linux drops it from strings it parses (as if it were a byte
    /// order mark; JSONDecoder keeps it), which is Foundation's reading, not the library's writing.
    static let valueScalars: [Unicode.Scalar] =
        (0...0x7F).map(scalar)
        + ["ü", "ß", "é", "\u{301}", "中", "🚀", "\u{200B}", "\u{FFFD}", "ש", "\u{2028}", scalar(0xFDD0), scalar(0x10FFFF)]
    static let keyScalars: [Unicode.Scalar] = (0x20...0x7E).map(scalar) + ["\t", "\n", "ü", "中", "🚀"]

    static func text<G: RandomNumberGenerator>(_ random: inout G, from alphabet: [Unicode.Scalar], maxLength: Int) -> String {
        var view = String.UnicodeScalarView()
        for _ in 0..<random.int(0...maxLength) { view.append(random.pick(alphabet)) }
        return String(view)
    }

    static func key<G: RandomNumberGenerator>(_ random: inout G, shape: QueryShape?, nested: Bool) -> String {
        var alphabet = keyScalars
        if shape == .brackets { alphabet.removeAll { $0 == "[" || $0 == "]" } }
        while true {
            let key = text(&random, from: alphabet, maxLength: 6)
            if !(key.isEmpty && nested && shape == .brackets) { return key }
        }
    }

    static func scalarValue<G: RandomNumberGenerator>(_ random: inout G) -> ParameterModel {
        switch random.int(1...100) {
        case 1...30: return .string(text(&random, from: valueScalars, maxLength: 8))
        case 31...45:
            let type = random.pick([ParameterModel.IntegerType.int, .int8, .int16, .int32, .int64])
            let bounds: ClosedRange<Int64> =
                switch type {
                case .int8: Int64(Int8.min)...Int64(Int8.max)
                case .int16: Int64(Int16.min)...Int64(Int16.max)
                case .int32: Int64(Int32.min)...Int64(Int32.max)
                default: Int64.min...Int64.max
                }
            let shift = random.int(0...62)
            let value =
                random.chance(30)
                ? random.pick([bounds.lowerBound, bounds.upperBound, 0, 1, -1])
                : Int64.random(in: bounds, using: &random) >> shift
            return .signed(min(max(value, bounds.lowerBound), bounds.upperBound), type)
        case 46...55:
            let type = random.pick([ParameterModel.IntegerType.uint, .uint8, .uint16, .uint32, .uint64])
            let upper: UInt64 =
                switch type {
                case .uint8: UInt64(UInt8.max)
                case .uint16: UInt64(UInt16.max)
                case .uint32: UInt64(UInt32.max)
                default: UInt64.max
                }
            let value = random.chance(30) ? random.pick([upper, 0, 1]) : UInt64.random(in: 0...upper, using: &random)
            return .unsigned(value, type)
        case 56...70:
            if random.chance(30) {
                return .double(
                    random.pick([
                        0.1, 25.0, -0.0, 1e300, Double.leastNonzeroMagnitude, 1.0 / 3, Double.greatestFiniteMagnitude, 1e-7, 123456789.0,
                    ]))
            }
            var value = Double(bitPattern: random.next())
            while !value.isFinite { value = Double(bitPattern: random.next()) }
            return .double(value)
        case 71...80:
            if random.chance(30) {
                return .float(random.pick([Float(0.1), Float.greatestFiniteMagnitude, Float.leastNonzeroMagnitude, 16_777_216, -2.5]))
            }
            var value = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            while !value.isFinite { value = Float(bitPattern: UInt32(truncatingIfNeeded: random.next())) }
            return .float(value)
        case 81...90: return .bool(random.chance(50))
        case 91...95: return .null
        default: return .absent
        }
    }

    /// A value for a query of `shape`, or for JSON when `shape` is `nil` (anything nests there).
    static func value<G: RandomNumberGenerator>(_ random: inout G, shape: QueryShape?, depth: Int) -> ParameterModel {
        let roll = random.int(1...100)
        if roll <= 55 || depth >= 3 { return scalarValue(&random) }
        if roll <= 80 || shape == .flat {
            let elements = (0..<random.int(0...4)).map { _ in
                shape == nil ? value(&random, shape: nil, depth: depth + 1) : scalarValue(&random)
            }
            return .array(elements)
        }
        var dictionary: [String: ParameterModel] = [:]
        for _ in 0..<random.int(0...3) {
            dictionary[key(&random, shape: shape, nested: true)] = value(&random, shape: shape, depth: depth + 1)
        }
        return .dictionary(dictionary)
    }

    static func parameters<G: RandomNumberGenerator>(_ random: inout G, shape: QueryShape?) -> [String: ParameterModel] {
        var parameters: [String: ParameterModel] = [:]
        for _ in 0..<random.int(1...5) {
            parameters[key(&random, shape: shape, nested: false)] = value(&random, shape: shape, depth: 0)
        }
        return parameters
    }

    // MARK: Boxing

    static func boxed(_ model: ParameterModel, _ boxing: Boxing) -> Any {
        let ns = boxing == .nsNumber
        switch model {
        case .string(let string): return string
        case .signed(let value, let type):
            switch type {
            case .int8: return ns ? NSNumber(value: Int8(value)) : Int8(value)
            case .int16: return ns ? NSNumber(value: Int16(value)) : Int16(value)
            case .int32: return ns ? NSNumber(value: Int32(value)) : Int32(value)
            case .int: return ns ? NSNumber(value: Int(value)) : Int(value)
            default: return ns ? NSNumber(value: value) : value
            }
        case .unsigned(let value, let type):
            switch type {
            case .uint8: return ns ? NSNumber(value: UInt8(value)) : UInt8(value)
            case .uint16: return ns ? NSNumber(value: UInt16(value)) : UInt16(value)
            case .uint32: return ns ? NSNumber(value: UInt32(value)) : UInt32(value)
            case .uint: return ns ? NSNumber(value: UInt(value)) : UInt(value)
            default: return ns ? NSNumber(value: value) : value
            }
        case .double(let value): return ns ? NSNumber(value: value) : value
        case .float(let value): return ns ? NSNumber(value: value) : value
        case .bool(let value): return ns ? NSNumber(value: value) : value
        case .null: return NSNull()
        case .absent: return Optional<String>.none as Any
        case .array(let elements): return elements.map { boxed($0, boxing) }
        case .dictionary(let dictionary): return dictionary.mapValues { boxed($0, boxing) }
        }
    }

    /// What a JSON document can say of `model`: nothing is absent (it is `null`) and a Float is the
    /// Double its shortest decimal reads as.
    static func asJSONDocument(_ model: ParameterModel) -> ParameterModel {
        switch model {
        case .absent: .null
        case .float(let value): .double(Double("\(value)") ?? 0)
        case .array(let elements): .array(elements.map(asJSONDocument))
        case .dictionary(let dictionary): .dictionary(dictionary.mapValues(asJSONDocument))
        default: model
        }
    }

    /// JSON text for a document model, written here so `JSONSerialization` parses the test's own text.
    static func jsonText(_ model: ParameterModel) -> String {
        switch model {
        case .string(let string): return jsonString(string)
        case .signed(let value, _): return "\(value)"
        case .unsigned(let value, _): return "\(value)"
        case .double(let value): return "\(value)"
        case .float(let value): return "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .null, .absent: return "null"
        case .array(let elements): return "[" + elements.map(jsonText).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            return "{" + dictionary.map { jsonString($0.key) + ":" + jsonText($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func jsonString(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    // MARK: The property

    static func check(_ random: inout SeededGenerator) throws -> String? {
        let boxing = random.pick(Boxing.allCases)
        let bools: QueryStyle.BoolStyle = random.chance(50) ? .literal : .numeric
        let arrays: QueryStyle.ArrayStyle = random.pick([.brackets, .repeatedKey, .commaSeparated])
        let style = QueryStyle(arrays: arrays, bools: bools)
        let shape: QueryShape = arrays == .brackets ? .brackets : .flat

        // Query and form, one dictionary for both.
        var queryModel = parameters(&random, shape: shape)
        if boxing == .jsonSerialization { queryModel = queryModel.mapValues(asJSONDocument) }
        let queryInput = try input(queryModel, boxing)
        let queryRequest = try TestEndpoint(endpoint: "p", parameters: queryInput, queryStyle: style).makeRequest()
        let query = URLComponents(url: queryRequest.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        if let failure = QueryDecoding.compare(query, to: queryModel, style: style) {
            return "query \(style) \(boxing): \(failure) in '\(query)'"
        }
        let formRequest = try TestEndpoint(
            endpoint: "p", method: .post, parameters: queryInput, parameterEncoding: .form,
            queryStyle: style
        ).makeRequest()
        let form = formRequest.bodyText ?? ""
        if form != query { return "form body '\(form)' differs from the query '\(query)'" }

        // JSON, with anything nested.
        var jsonModel = parameters(&random, shape: nil)
        if boxing == .jsonSerialization { jsonModel = jsonModel.mapValues(asJSONDocument) }
        let jsonRequest = try TestEndpoint(endpoint: "p", method: .post, parameters: try input(jsonModel, boxing)).makeRequest()
        let body = jsonRequest.bodyData ?? Data()
        guard let decoded = try? JSONSerialization.jsonObject(with: body) else {
            return "JSON \(boxing): not JSON: \(String(decoding: body, as: UTF8.self))"
        }
        if let failure = JSONComparison.compare(decoded, to: .dictionary(jsonModel), path: "") {
            return "JSON \(boxing): \(failure) in \(String(decoding: body, as: UTF8.self))"
        }
        return nil
    }

    static func input(_ model: [String: ParameterModel], _ boxing: Boxing) throws -> [String: Any] {
        guard boxing == .jsonSerialization else { return model.mapValues { boxed($0, boxing) } }
        let text = jsonText(.dictionary(model))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }
}

/// Reads a query back by the library's documented conventions, independently of its encoder.
enum QueryDecoding {
    indirect enum Node: Equatable {
        case text(String)
        case list([String])
        case map([String: Node])
    }

    static func compare(_ query: String, to model: [String: ParameterModel], style: QueryStyle) -> String? {
        var pairs: [(name: String, value: Substring)] = []
        if !query.isEmpty {
            for item in query.split(separator: "&", omittingEmptySubsequences: false) {
                guard let equals = item.firstIndex(of: "="), let name = percentDecoded(item[..<equals]) else {
                    return "pair '\(item)' is not name=value"
                }
                pairs.append((name, item[item.index(after: equals)...]))
            }
        }
        let expected = model.compactMapValues { effective($0, style: style) }
        switch style.arrays {
        case .brackets:
            var root: [String: Node] = [:]
            for pair in pairs {
                guard let value = percentDecoded(pair.value) else { return "value '\(pair.value)' does not decode" }
                guard insert(value, at: path(of: pair.name), into: &root) else { return "name '\(pair.name)' conflicts" }
            }
            return matches(.map(root), .map(expected)) ? nil : "decoded \(root), expected \(expected)"
        case .repeatedKey, .commaSeparated:
            var lists: [String: [String]] = [:]
            for pair in pairs {
                let parts =
                    style.arrays == .commaSeparated
                    ? pair.value.split(separator: ",", omittingEmptySubsequences: false) : [pair.value]
                for part in parts {
                    guard let value = percentDecoded(part) else { return "value '\(part)' does not decode" }
                    lists[pair.name, default: []].append(value)
                }
            }
            let flattened = expected.mapValues { node -> [String] in
                switch node {
                case .text(let text): [text]
                case .list(let list): list
                case .map: []
                }
            }
            return matches(.map(lists.mapValues(Node.list)), .map(flattened.mapValues(Node.list)))
                ? nil
                : "decoded \(lists), expected \(flattened)"
        }
    }

    static func matches(_ decoded: Node, _ expected: Node) -> Bool {
        switch (decoded, expected) {
        case (.text(let text), .text(let wanted)): return sameText(text, wanted)
        case (.list(let texts), .list(let wanted)):
            return texts.count == wanted.count && zip(texts, wanted).allSatisfy(sameText)
        case (.map(let map), .map(let wanted)):
            return Set(map.keys) == Set(wanted.keys) && map.allSatisfy { key, node in wanted[key].map { matches(node, $0) } ?? false }
        default: return false
        }
    }

    /// Texts match exactly, except that a floating-point value may be written in any notation that
    /// reads back as the same Double (`JSONSerialization` hands some numbers over as
    /// `NSDecimalNumber`, which keeps no `.0`). An integer must still be written as one.
    static func sameText(_ text: String, _ wanted: String) -> Bool {
        if Array(text.unicodeScalars) == Array(wanted.unicodeScalars) { return true }
        guard wanted.contains(where: { $0 == "." || $0 == "e" }), let value = Double(text), let wantedValue = Double(wanted) else {
            return false
        }
        return value.bitPattern == wantedValue.bitPattern
    }

    /// `k[a][]` → `["k", "a", ""]`: a key, then one part per bracket pair.
    static func path(of name: String) -> [String] {
        guard let open = name.firstIndex(of: "[") else { return [name] }
        var parts = [String(name[..<open])]
        var rest = name[open...]
        while rest.first == "[", let close = rest.firstIndex(of: "]") {
            parts.append(String(rest[rest.index(after: rest.startIndex)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return rest.isEmpty ? parts : [name]
    }

    static func insert(_ value: String, at path: [String], into map: inout [String: Node]) -> Bool {
        guard let head = path.first else { return false }
        let rest = Array(path.dropFirst())
        if rest.isEmpty {
            guard map[head] == nil else { return false }
            map[head] = .text(value)
            return true
        }
        if rest == [""] {
            guard case .list(let list) = map[head] ?? .list([]) else { return false }
            map[head] = .list(list + [value])
            return true
        }
        guard case .map(var child) = map[head] ?? .map([:]) else { return false }
        guard insert(value, at: rest, into: &child) else { return false }
        map[head] = .map(child)
        return true
    }

    /// The node a model value is expected to decode to; `nil` when it sends no pair.
    static func effective(_ model: ParameterModel, style: QueryStyle) -> Node? {
        switch model {
        case .absent: return nil
        case .array(let elements):
            let texts = elements.compactMap { text(of: $0, style: style) }
            return texts.isEmpty ? nil : .list(texts)
        case .dictionary(let dictionary):
            let children = dictionary.compactMapValues { effective($0, style: style) }
            return children.isEmpty ? nil : .map(children)
        default:
            return text(of: model, style: style).map(Node.text)
        }
    }

    /// The text a scalar must arrive as, written from its meaning rather than by the library's code.
    static func text(of model: ParameterModel, style: QueryStyle) -> String? {
        switch model {
        case .string(let string): string
        case .signed(let value, _): String(value)
        case .unsigned(let value, _): String(value)
        case .double(let value): value.description
        case .float(let value): value.description
        case .bool(let value): style.bools == .literal ? (value ? "true" : "false") : (value ? "1" : "0")
        case .null: ""
        case .absent, .array, .dictionary: nil
        }
    }
}

/// Compares what `JSONSerialization` read from the library's JSON with the model.
enum JSONComparison {
    static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    static func compare(_ value: Any, to model: ParameterModel, path: String) -> String? {
        switch model {
        case .string(let string):
            guard let decoded = value as? String, Array(decoded.unicodeScalars) == Array(string.unicodeScalars) else {
                return "\(path): \(value) is not \(string.debugDescription)"
            }
        case .signed, .unsigned:
            let expected: String =
                if case .signed(let signed, _) = model { String(signed) } else if case .unsigned(let unsigned, _) = model {
                    String(unsigned)
                } else { "" }
            guard let number = value as? NSNumber, ObjectIdentifier(type(of: number)) != booleanClass, number.stringValue == expected else {
                return "\(path): \(value) is not the integer \(expected)"
            }
        case .double(let double):
            // `JSONSerialization` on Linux reads some numbers as `NSDecimalNumber`, whose
            // `doubleValue` is not correctly rounded: read its exact text instead.
            guard let number = value as? NSNumber, ObjectIdentifier(type(of: number)) != booleanClass,
                (number is NSDecimalNumber ? Double(number.stringValue) : number.doubleValue)?.bitPattern == double.bitPattern
            else {
                return "\(path): \(value) is not the double \(double)"
            }
        case .float(let float):
            // The shortest decimal of the Float, not the Double nearest to it (0.1, not 0.10000000149011612).
            guard let number = value as? NSNumber,
                (number is NSDecimalNumber ? Double(number.stringValue) : number.doubleValue) == Double(float.description)
            else {
                return "\(path): \(value) is not the float \(float)"
            }
        case .bool(let bool):
            guard let number = value as? NSNumber, ObjectIdentifier(type(of: number)) == booleanClass, number.boolValue == bool else {
                return "\(path): \(value) is not the boolean \(bool)"
            }
        case .null, .absent:
            guard value is NSNull else { return "\(path): \(value) is not null" }
        case .array(let elements):
            guard let decoded = value as? [Any], decoded.count == elements.count else {
                return "\(path): \(value) is not an array of \(elements.count)"
            }
            for (index, element) in elements.enumerated() {
                if let failure = compare(decoded[index], to: element, path: "\(path)[\(index)]") { return failure }
            }
        case .dictionary(let dictionary):
            guard let decoded = value as? [String: Any], Set(decoded.keys) == Set(dictionary.keys) else {
                return "\(path): \(value) does not have the keys \(dictionary.keys.sorted())"
            }
            for (key, child) in dictionary {
                if let failure = compare(decoded[key] as Any, to: child, path: "\(path).\(key.debugDescription)") { return failure }
            }
        }
        return nil
    }
}

// MARK: - URLs

enum URLProperty {
    static let asciiLabelScalars = Array("abcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars)
    static let unicodeLabelScalars = Array("üöäßéèçñøåæœабвгдежзийклмнопрстуфхцчшщ中文字例えてすとひらがな".unicodeScalars)
    static let asciiLetters = asciiLabelScalars.filter(\.properties.isAlphabetic)
    static let unicodeLetters = unicodeLabelScalars.filter(\.properties.isAlphabetic)
    static let literalScalars = Array("abcXYZ019-._~!$&'()*+,;=:@ü中".unicodeScalars)
    /// Pieces of segment values, chosen so that values are often dangerous in every known spelling.
    static let tokens = [
        ".", "..", "/", "\\", "%2e", "%2E", "%2f", "%2F", "%252e", "%25", "%", ";", "?", "#", "@", ":",
        " ", "a", "ü", "\u{301}", "\u{FF0E}", "\u{2024}", "\u{2025}", "\u{3002}", "\u{FF61}", "%zz", "\r\n", "+", "",
    ]

    struct Host {
        var text: String
        var expectedHost: String
        var port: Int?
        var baseSegments: [String]
    }

    /// A label that starts with a letter, so no label reads as a number (a host ending in a number is
    /// an IPv4 address to URL parsers).
    static func label<G: RandomNumberGenerator>(_ random: inout G) -> String {
        let unicode = random.chance(30)
        let alphabet = unicode ? unicodeLabelScalars : asciiLabelScalars
        var view = String.UnicodeScalarView()
        view.append(random.pick(unicode ? unicodeLetters : asciiLetters))
        for _ in 0..<random.int(0...7) { view.append(random.pick(alphabet)) }
        if random.chance(20), view.count >= 2 { view.insert("-", at: view.index(after: view.startIndex)) }
        return String(view)
    }

    static func host<G: RandomNumberGenerator>(_ random: inout G) -> Host? {
        let scheme = random.pick(["http", "https", "HTTP", "Https"])
        let labels: [String]
        let expected: String
        switch random.int(1...10) {
        case 1:
            labels = (0..<4).map { _ in String(random.int(0...255)) }
            expected = labels.joined(separator: ".")
        case 2:
            labels = ["[::1]"]
            expected = "[::1]"
        default:
            labels = (0..<random.int(1...3)).map { _ in label(&random) }
            guard let host = Punycode.host(labels) else { return nil }
            expected = host
        }
        let port = random.chance(30) ? random.int(1...65535) : nil
        let base = (0..<random.int(0...2)).map { _ in literal(&random) }
        let text =
            "\(scheme)://\(labels.joined(separator: "."))" + (port.map { ":\($0)" } ?? "")
            + (base.isEmpty ? (random.chance(50) ? "/" : "") : "/" + base.joined(separator: "/"))
        return Host(text: text, expectedHost: expected, port: port, baseSegments: base)
    }

    static func literal<G: RandomNumberGenerator>(_ random: inout G) -> String {
        while true {
            var view = String.UnicodeScalarView()
            for _ in 0..<random.int(1...6) { view.append(random.pick(literalScalars)) }
            let text = String(view)
            if text != "." && text != ".." { return text }
        }
    }

    static func segmentValue<G: RandomNumberGenerator>(_ random: inout G) -> String {
        if random.chance(40) { return ParameterProperty.text(&random, from: ParameterProperty.valueScalars, maxLength: 6) }
        return (0..<random.int(0...4)).map { _ in random.pick(tokens) }.joined()
    }

    /// An independent reading of what a normalising server could resolve: a part between `/` or `\`,
    /// after decoding as often as it changes, without a `;parameter`, compatibility-mapped, is `.`/`..`.
    static func problem(_ value: String) -> PathSegmentProblem? {
        if value.isEmpty { return .empty }
        var current = value
        for _ in 0..<10 {
            for part in current.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" }) {
                let name = String(String.UnicodeScalarView(part.prefix { $0 != ";" }))
                let mapped = String(
                    String.UnicodeScalarView(
                        name.precomposedStringWithCompatibilityMapping.unicodeScalars.map {
                            $0 == "\u{3002}" || $0 == "\u{FF61}" ? "." : $0
                        }))
                if mapped.utf8.elementsEqual(".".utf8) || mapped.utf8.elementsEqual("..".utf8) { return .dotSegment }
            }
            let decoded = lenientlyDecoded(current)
            if decoded.utf8.elementsEqual(current.utf8) { break }
            current = decoded
        }
        return nil
    }

    static func lenientlyDecoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    enum Piece {
        case literal(String)
        case value(String)
    }

    static func check(_ random: inout SeededGenerator) throws -> String? {
        guard let host = host(&random) else { return nil }
        let pathSegments = (0..<random.int(0...2)).map { _ in literal(&random) }
        var pieces: [Piece] = []
        for _ in 0..<random.int(0...4) {
            pieces.append(random.chance(50) ? .literal(literal(&random)) : .value(segmentValue(&random)))
        }
        var endpoint = ""
        for (index, piece) in pieces.enumerated() {
            if index > 0 { endpoint += "/" }
            switch piece {
            case .literal(let text): endpoint += text
            case .value(let value): endpoint += "\(segment: value)"
            }
        }
        var path = pathSegments.joined(separator: "/")
        if !path.isEmpty, random.chance(30) { path = "/" + path }
        if !path.isEmpty, !pieces.isEmpty, random.chance(30) { path += "/" }

        let all: [Piece] = host.baseSegments.map(Piece.literal) + pathSegments.map(Piece.literal) + pieces
        let firstProblem = all.enumerated().lazy.compactMap { offset, piece -> (Int, PathSegmentProblem)? in
            guard case .value(let value) = piece, let problem = problem(value) else { return nil }
            return (offset + 1, problem)
        }.first

        let request: OutgoingRequest
        do {
            request = try TestEndpoint(host: host.text, path: path, endpoint: endpoint).makeRequest()
        } catch {
            if let (position, problem) = firstProblem, error == .invalidPathSegment(position: position, reason: problem) { return nil }
            return "\(host.text) + \(path.debugDescription) + \(endpoint.debugDescription): \(error), expected "
                + (firstProblem.map { "refusal at \($0.0) (\($0.1))" } ?? "a URL")
        }
        let described = "\(host.text) + \(path.debugDescription) + \(endpoint.debugDescription) → \(request.url.absoluteString)"
        if let firstProblem { return "\(described): expected a refusal at \(firstProblem.0)" }
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        guard request.url.scheme == host.text.prefix(while: { $0 != ":" }).lowercased() else { return "\(described): scheme changed" }
        guard
            request.url.host == host.expectedHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                || components?.percentEncodedHost == host.expectedHost
        else {
            return "\(described): host is \(request.url.host ?? "none"), expected \(host.expectedHost)"
        }
        guard request.url.port == host.port else { return "\(described): port changed" }
        let rawPath = components?.percentEncodedPath ?? ""
        // With no segment at all, the URL may end in the host's own `/`.
        let segments =
            rawPath.isEmpty || (rawPath == "/" && all.isEmpty)
            ? []
            : rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard rawPath.isEmpty || rawPath.hasPrefix("/"), segments.count == all.count else {
            return "\(described): \(segments.count) segments, expected \(all.count)"
        }
        for (segment, piece) in zip(segments, all) {
            let expected: String
            switch piece {
            case .literal(let text): expected = text
            case .value(let value): expected = value
            }
            guard let decoded = percentDecoded(segment), decoded.unicodeScalars.elementsEqual(expected.unicodeScalars) else {
                return "\(described): segment '\(segment)' does not decode to \(expected.debugDescription)"
            }
            if case .value = piece, problem(String(segment)) != nil {
                return "\(described): segment '\(segment)' could be resolved by a normalising server"
            }
        }
        return nil
    }
}
