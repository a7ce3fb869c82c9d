/// Writes the per-service support code: configuration, coders, value conversions, `JSONValue`,
/// and the out-of-line storage recursive schemas need.
struct SupportRenderer {
    let api: String
    let access: String

    func render(usesIndirect: Bool, servers: String, uses: (String) -> Bool) -> String {
        let a = access
        let usesJSONValue = uses("JSONValue") || uses(".queryObject(") || uses(".formFields(")
        var text = """
            extension \(api) {
                /// Where calls go and how they are authorized: set at start-up, read on every call
                /// made outside `withConfiguration(_:operation:)`.
                \(a)static let configuration = Configuration(server: defaultServer)

                /// The configuration of calls made inside `withConfiguration(_:operation:)`.
                @TaskLocal static var taskConfiguration: Configuration?
                static var activeConfiguration: Configuration { taskConfiguration ?? configuration }
                /// Runs `operation` with its calls going through `configuration` instead of the shared one, so
                /// one process talks to two servers of the API. A stream reads it where it is made. (`Actor` is
                /// qualified: GitHub's document has an `Actor` schema.)
                \(a)static func withConfiguration<R>(
                    _ configuration: Configuration, isolation: isolated (any _Concurrency.Actor)? = #isolation,
                    operation: () async throws -> R
                ) async rethrows -> R {
                    try await $taskConfiguration.withValue(configuration, operation: operation, isolation: isolation)
                }
            \(servers)
                /// Decodes responses: `date-time` with or without fractional seconds. Public, so data read
                /// another way (a stream's events, a stored body) decodes by the same rules.
                \(a)static let jsonDecoder: JSONDecoder = {
                    let decoder = JSONDecoder()
                    decoder.dateDecodingStrategy = .custom { decoder in
                        let container = try decoder.singleValueContainer()
                        let text = try container.decode(String.self)
                        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
                        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
                        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date-time")
                    }
                    return decoder
                }()

                /// Encodes bodies: dates as ISO 8601, keys sorted so the same value gives the same bytes.
                \(a)static let jsonEncoder: JSONEncoder = {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    encoder.dateEncodingStrategy = .custom { date, encoder in
                        var container = encoder.singleValueContainer()
                        try container.encode(text(of: date))
                    }
                    return encoder
                }()

                /// The body of a failed call read as the type the document gives for it, or `nil` for
                /// a timeout, a transport error or a body of another shape.
                ///
                /// ```swift
                /// if case .failure(let error) = result, let problem = \(api).documentedError(error, as: Problem.self) { … }
                /// ```
                \(a)static func documentedError<Body: Decodable>(_ error: EndpointRouter.HTTPClientError, as type: Body.Type) -> Body? {
                    guard case .unacceptableStatusCode(let response) = error else { return nil }
                    return try? response.decode(Body.self, using: jsonDecoder)
                }

                static func text(of date: Date) -> String { Date.ISO8601FormatStyle().format(date) }

            """
        if usesJSONValue || uses(".jsonText(") {
            text += """
                    static func jsonText(_ value: some Encodable) -> String {
                        String(decoding: (try? jsonEncoder.encode(value)) ?? Data(), as: UTF8.self)
                    }

                """
        }
        if uses(".decodeJSONString)") {
            text += """
                    /// A JSON string body as its text (without the quotes and escapes).
                    static func decodeJSONString(_ response: EndpointRouter.EndpointResponse<Data>) -> Result<String, EndpointRouter.HTTPClientError> {
                        do {
                            return .success(try jsonDecoder.decode(String.self, from: response.value))
                        } catch {
                            return .failure(.decodingFailed(response, "the body is not a JSON string: \\(error)"))
                        }
                    }

                """
        }
        if uses(".queryObject(") {
            text += """
                    /// An object as nested keys for `name[key]=value` (deepObject).
                    static func queryObject(_ value: some Encodable) -> Any {
                        guard let data = try? jsonEncoder.encode(value), let json = try? jsonDecoder.decode(JSONValue.self, from: data) else { return [:] as [String: Any] }
                        return json.queryValue
                    }

                """
        }
        if uses(".formFields(") {
            text += """
                    /// A model's top-level fields as form fields; nested values as JSON text.
                    static func formFields(_ value: some Encodable) -> [String: String] {
                        guard let data = try? jsonEncoder.encode(value), case .object(let fields)? = try? jsonDecoder.decode(JSONValue.self, from: data) else { return [:] }
                        return fields.compactMapValues(\\.formText)
                    }

                """
        }
        if uses(".headerFields(") {
            text += """
                    static func headerFields(_ fields: [String: String?]) -> [String: String] { fields.compactMapValues { $0 } }

                """
        }
        if uses(".DecodedEvents(") {
            text += """
                    /// The events of a `text/event-stream` answer, each event's `data` decoded as `Element`
                    /// with `jsonDecoder`. An event without data (a keep-alive) is skipped, and a `[DONE]`
                    /// data line, which OpenAI-style servers send as the last event, ends the sequence. Data that
                    /// does not decode throws `.decodingFailed` naming the event's number.
                    \(a)struct DecodedEvents<Element: Decodable & Sendable>: AsyncSequence, Sendable {
                        \(a)typealias Failure = EndpointRouter.HTTPClientError
                        /// The undecoded events, for the event names, IDs and retry hints this sequence drops.
                        \(a)let events: EndpointRouter.ResponseStream<EndpointRouter.ServerSentEvent>

                        /// Decodes the events of `events`.
                        \(a)init(_ events: EndpointRouter.ResponseStream<EndpointRouter.ServerSentEvent>) { self.events = events }

                        /// Starts reading: the request is sent when the first element is asked for.
                        \(a)func makeAsyncIterator() -> AsyncIterator { AsyncIterator(events: events.makeAsyncIterator()) }

                        /// Reads and decodes the events in order.
                        \(a)struct AsyncIterator: AsyncIteratorProtocol {
                            var events: EndpointRouter.ResponseStream<EndpointRouter.ServerSentEvent>.AsyncIterator
                            var count = 0
                            var ended = false

                            /// The next decoded event; `nil` at the end of the stream or after `[DONE]`.
                            \(a)mutating func next() async throws(EndpointRouter.HTTPClientError) -> Element? {
                                while !ended, let event = try await events.next() {
                                    count += 1
                                    if event.data.isEmpty { continue }
                                    if event.data == "[DONE]" {
                                        ended = true
                                        return nil
                                    }
                                    do {
                                        return try jsonDecoder.decode(Element.self, from: Data(event.data.utf8))
                                    } catch {
                                        let response = EndpointRouter.EndpointResponse(
                                            value: Data(), statusCode: 200, headers: EndpointRouter.HeaderFields(), data: Data(),
                                            request: EndpointRouter.OutgoingRequest(url: URL(fileURLWithPath: "/")), url: nil)
                                        throw .decodingFailed(response, "event \\(count) of the stream is not a valid \\(Element.self): \\(error)")
                                    }
                                }
                                return nil
                            }
                        }
                    }

                """
        }
        if usesJSONValue {
            text += """
                    /// Any JSON value: what a schema without a fixed shape holds.
                    \(a)enum JSONValue: Codable, Sendable, Hashable {
                        case null
                        case bool(Bool)
                        case number(Double)
                        case string(String)
                        case array([JSONValue])
                        case object([String: JSONValue])

                        \(a)init(from decoder: any Decoder) throws {
                            let container = try decoder.singleValueContainer()
                            if container.decodeNil() {
                                self = .null
                            } else if let value = try? container.decode(Bool.self) {
                                self = .bool(value)
                            } else if let value = try? container.decode(Double.self) {
                                self = .number(value)
                            } else if let value = try? container.decode(String.self) {
                                self = .string(value)
                            } else if let value = try? container.decode([JSONValue].self) {
                                self = .array(value)
                            } else {
                                self = .object(try container.decode([String: JSONValue].self))
                            }
                        }

                        \(a)func encode(to encoder: any Encoder) throws {
                            var container = encoder.singleValueContainer()
                            switch self {
                            case .null: try container.encodeNil()
                            case .bool(let value): try container.encode(value)
                            case .number(let value): try container.encode(value)
                            case .string(let value): try container.encode(value)
                            case .array(let value): try container.encode(value)
                            case .object(let value): try container.encode(value)
                            }
                        }

                        var queryValue: Any {
                            switch self {
                            case .null: Optional<String>.none as Any
                            case .bool(let value): value
                            case .number(let value): value.rounded() == value && abs(value) < 1e15 ? Int(value) as Any : value
                            case .string(let value): value
                            case .array(let value): value.map(\\.queryValue)
                            case .object(let value): value.mapValues(\\.queryValue)
                            }
                        }

                        var formText: String? {
                            switch self {
                            case .null: nil
                            case .bool(let value): String(value)
                            case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
                            case .string(let value): value
                            case .array, .object: jsonText(self)
                            }
                        }
                    }

                """
        }
        if uses(".AnyCodingKey") {
            text += """
                    /// A coding key made at run time, for reading a discriminator.
                    struct AnyCodingKey: CodingKey {
                        let stringValue: String
                        var intValue: Int? { nil }
                        init(_ string: String) { stringValue = string }
                        init?(stringValue: String) { self.stringValue = stringValue }
                        init?(intValue: Int) { nil }
                    }

                """
        }
        text += """
                /// Where calls go and how they are authorized; lock-guarded, read on every call.
                \(a)final class Configuration: @unchecked Sendable {
                    private let lock = NSLock()
                    private var serverURL: String?
                    private var credentialStore: EndpointRouter.CredentialStore?
                    private var extraMiddlewares: [any EndpointRouter.HTTPMiddleware] = []

                    /// A configuration of its own, for `\(api).withConfiguration(_:operation:)`.
                    \(a)init(server: String?) { serverURL = server }

                    /// The server calls go to; without one, every call fails with `.badURL` saying to set it.
                    \(a)var server: String {
                        lock.lock()
                        defer { lock.unlock() }
                        return serverURL ?? "(no server set: call \(api).configuration.use(server:) first)"
                    }

                    /// Sends every later call to `server`, such as `"https://staging.example.com/v1"`.
                    \(a)func use(server: String) {
                        lock.lock()
                        defer { lock.unlock() }
                        serverURL = server
                    }

                    /// Authorizes the operations that document security with `store` (see `\(api).Credentials`).
                    \(a)func use(credentials store: EndpointRouter.CredentialStore?) {
                        lock.lock()
                        defer { lock.unlock() }
                        credentialStore = store
                    }

                    /// Runs `middlewares` (logging, retries, metrics) on every call, after authorization.
                    \(a)func use(middlewares: [any EndpointRouter.HTTPMiddleware]) {
                        lock.lock()
                        defer { lock.unlock() }
                        extraMiddlewares = middlewares
                    }

                    func middlewares(host: String, authorized: Bool) -> [any EndpointRouter.HTTPMiddleware] {
                        lock.lock()
                        defer { lock.unlock() }
                        guard authorized, let credentialStore else { return extraMiddlewares }
                        return [EndpointRouter.AuthorizationMiddleware(credentialStore, host: host)] + extraMiddlewares
                    }
                }

            """
        if usesIndirect {
            text += """

                        /// Stores a property of a recursive schema out of line, so a struct can contain itself.
                        @propertyWrapper
                        \(a)struct Indirect<Value: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
                            private final class Storage: Sendable {
                                let value: Value
                                init(_ value: Value) { self.value = value }
                            }
                            private var storage: Storage
                            \(a)var wrappedValue: Value {
                                get { storage.value }
                                set { storage = Storage(newValue) }
                            }
                            \(a)init(wrappedValue: Value) { storage = Storage(wrappedValue) }
                            \(a)init(from decoder: any Decoder) throws { storage = Storage(try Value(from: decoder)) }
                            \(a)func encode(to encoder: any Encoder) throws { try wrappedValue.encode(to: encoder) }
                            \(a)static func == (lhs: Self, rhs: Self) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
                            \(a)func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
                        }
                    }

                    extension KeyedDecodingContainer {
                        /// A missing key is a `nil` recursive property, as it is for a plain optional.
                        \(a)func decode<Wrapped>(_ type: \(api).Indirect<Wrapped?>.Type, forKey key: Key) throws -> \(api).Indirect<Wrapped?> {
                            \(api).Indirect(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
                        }
                    }

                    extension KeyedEncodingContainer {
                        /// A `nil` recursive property is left out, as a plain optional is.
                        \(a)mutating func encode<Wrapped>(_ value: \(api).Indirect<Wrapped?>, forKey key: Key) throws {
                            try encodeIfPresent(value.wrappedValue, forKey: key)
                        }
                    }

                """
        } else {
            text += "}\n"
        }
        return text
    }
}
