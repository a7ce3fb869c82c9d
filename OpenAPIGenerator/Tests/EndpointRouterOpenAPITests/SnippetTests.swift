import EndpointRouterOpenAPI
import Testing

/// Small documents in, the Swift they must produce out: one rule of the mapping per test.
struct SnippetTests {
    /// Generates `yaml` (a document body under `openapi: 3.x`) and returns all files joined.
    func generate(_ yaml: String, version: String = "3.1.0", service: String = "T") throws -> (text: String, warnings: [String]) {
        let document = "openapi: \(version)\ninfo: {title: T, version: '1'}\n" + yaml
        let result = try OpenAPIGenerator.generate(document, options: GeneratorOptions(service: service))
        return (result.files.map(\.contents).joined(separator: "\n"), result.warnings.map(\.description))
    }

    @Test func nullableInAllThreeSpellingsIsOptionalAndKept() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                Item:
                  type: object
                  required: [a, b, c, d]
                  properties:
                    a: {type: string, nullable: true}
                    b: {anyOf: [{type: integer}, {type: 'null'}]}
                    c: {type: [boolean, 'null']}
                    d: {oneOf: [{$ref: '#/components/schemas/Tag'}, {type: 'null'}]}
                Tag: {type: object, properties: {name: {type: string}}}
            """)
        #expect(text.contains("public var a: String?\n"))
        #expect(text.contains("public var b: Int?\n"))
        #expect(text.contains("public var c: Bool?\n"))
        #expect(text.contains("public var d: Tag?\n"))
        #expect(text.contains("public init(a: String? = nil, b: Int? = nil, c: Bool? = nil, d: Tag? = nil)"))
    }

    @Test func requiredPropertiesAreNotOptionalAndFormatsMapToSwiftTypes() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                Item:
                  type: object
                  required: [id, at, ratio, count]
                  properties:
                    id: {type: integer, format: int64}
                    at: {type: string, format: date-time}
                    ratio: {type: number, format: float}
                    count: {type: integer, format: int32}
                    extra: {type: object, additionalProperties: {type: string}}
                    anything: {}
            """)
        #expect(text.contains("public var id: Int64\n"))
        #expect(text.contains("public var at: Date\n"))
        #expect(text.contains("public var ratio: Float\n"))
        #expect(text.contains("public var count: Int32\n"))
        #expect(text.contains("public var extra: [String: String]?\n"))
        #expect(text.contains("public var anything: TAPI.JSONValue?\n"))
    }

    @Test func enumsKeepUnknownValuesAsOpenStructs() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                Status: {type: string, enum: [open, closed, in-progress, '']}
            """)
        #expect(text.contains("public struct Status: RawRepresentable, Codable, Sendable, Hashable {"))
        #expect(text.contains("public static let inProgress = Status(rawValue: \"in-progress\")"))
        #expect(text.contains("public static let empty = Status(rawValue: \"\")"))
        #expect(text.contains("public init(rawValue: String) { self.rawValue = rawValue }"))
    }

    @Test func oneOfWithDiscriminatorSwitchesOnItAndWithoutTriesEachAlternative() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                Cat: {type: object, properties: {kind: {type: string}, meows: {type: boolean}}}
                Dog: {type: object, properties: {kind: {type: string}, barks: {type: boolean}}}
                Pet:
                  oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
                  discriminator: {propertyName: kind, mapping: {cat: '#/components/schemas/Cat'}}
                IdOrName:
                  oneOf: [{type: integer}, {type: string}]
            """)
        #expect(text.contains("public enum Pet: Codable, Sendable, Hashable {\n    case cat(Cat)\n    case dog(Dog)\n"))
        #expect(text.contains("switch try container.decodeIfPresent(String.self, forKey: TAPI.AnyCodingKey(\"kind\")) {"))
        #expect(text.contains("case \"cat\"?: self = .cat(try decoder.singleValueContainer().decode(Cat.self)); return"))
        #expect(text.contains("case \"Dog\"?: self = .dog(try decoder.singleValueContainer().decode(Dog.self)); return"))
        // A kind the document does not name is kept, not a failed response.
        #expect(text.contains("    case unknown(TAPI.JSONValue)\n"))
        #expect(text.contains("        self = .unknown(try TAPI.JSONValue(from: decoder))\n"))
        #expect(text.contains("public enum IdOrName: Codable, Sendable, Hashable {\n    case int(Int)\n    case string(String)\n"))
        #expect(
            text.contains("do { self = .int(try decoder.singleValueContainer().decode(Int.self)); return } catch { errors.append(error) }"))
    }

    @Test func deprecatedOperationsAndPropertiesAreMarkedForTheCompiler() throws {
        let (text, _) = try generate(
            """
            paths:
              /old: {get: {operationId: oldList, deprecated: true, responses: {'200': {description: ok}}}}
              /new: {get: {operationId: newList, responses: {'200': {description: ok}}}}
            components:
              schemas:
                Item: {type: object, properties: {old: {type: string, deprecated: true}, name: {type: string}}}
            """)
        let attribute = "@available(*, deprecated, message: \"deprecated in the API's OpenAPI document\")"
        #expect(text.contains("    \(attribute)\n    case oldList\n"))
        #expect(text.contains("    \(attribute)\n    public static func oldList() async"))
        #expect(!text.contains("\(attribute)\n    case newList"))
        #expect(
            text.contains("    \(attribute)\n    public var old: String? {\n        get { _old }\n        set { _old = newValue }\n    }\n")
        )
        #expect(text.contains("        case _old = \"old\"\n"))
        #expect(text.contains("    public var name: String?\n"))
    }

    @Test func theDefaultServerIsTheFirstWithoutVariablesNeverAPlaceholder() throws {
        let (text, _) = try generate(
            """
            servers:
              - url: 'https://{endpoint}/openai'
                variables: {endpoint: {default: your-resource-name.openai.azure.com}}
              - url: 'https://api.example.org/v1'
            paths: {}
            """)
        #expect(text.contains("public static let defaultServer: String? = \"https://api.example.org/v1\""))
        #expect(text.contains("public static func server1(endpoint: String = \"your-resource-name.openai.azure.com\") -> String"))

        let (onlyTemplate, warnings) = try generate(
            """
            servers:
              - url: 'https://{endpoint}/openai'
                variables: {endpoint: {default: your-resource-name.openai.azure.com}}
            paths: {}
            """)
        #expect(onlyTemplate.contains("public static let defaultServer: String? = nil"))
        #expect(warnings.contains { $0.contains("no server of the document is a default") && $0.contains("TAPI.server1(") })
    }

    @Test func wholeDescriptionsBecomeDocComments() throws {
        let (text, _) = try generate(
            """
            paths:
              /runs:
                get:
                  operationId: listRuns
                  summary: Lists runs.
                  description: "Lists the runs of a job,\\nnewest first.\\n\\n\\n\\nPaginated.   "
                  responses: {'200': {description: ok}}
            components:
              schemas:
                Run:
                  type: object
                  description: "A run of a job.\\nIts status changes as it runs."
                  properties:
                    status: {type: string, description: "One of queued, running,\\nor done."}
            """)
        #expect(
            text.contains(
                "/// Lists runs. `GET /runs`\n    ///\n    /// Lists the runs of a job,\n    /// newest first.\n    ///\n    /// Paginated.\n    case listRuns\n"
            ))
        #expect(text.contains("/// A run of a job.\n/// Its status changes as it runs.\npublic struct Run"))
        #expect(text.contains("    /// One of queued, running,\n    /// or done.\n    public var status: String?\n"))
    }

    @Test func inlineAlternativesAreNamedByWhatSetsThemApart() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                Card:
                  oneOf:
                    - {type: object, required: [note], properties: {note: {type: string}}}
                    - {type: object, required: [content_id], properties: {content_id: {type: integer}}}
                Label:
                  oneOf: [{type: string}, {type: object, properties: {id: {type: integer}, name: {type: string}}}]
                Source:
                  oneOf: [{type: object, title: Branch source, properties: {branch: {type: string}}}, {type: integer}]
            """)
        #expect(
            text.contains("public enum Card: Codable, Sendable, Hashable {\n    case note(CardNote)\n    case contentId(CardContentId)\n"))
        #expect(text.contains("public enum Label: Codable, Sendable, Hashable {\n    case string(String)\n    case object(LabelObject)\n"))
        #expect(
            text.contains(
                "public enum Source: Codable, Sendable, Hashable {\n    case branchSource(BranchSource)\n    case int(Int)\n"))
        #expect(!text.contains("Case1") && !text.contains("Case2"))
    }

    @Test func aSharedInlineObjectWithATitleIsNamedByItNotByItsFirstUse() throws {
        let (text, _) = try generate(
            """
            paths:
              /forks:
                get:
                  operationId: listForks
                  responses: {'200': {description: ok, content: {application/json: {schema: {type: object, title: Simple User, properties: {login: {type: string}}}}}}}
              /stars:
                get:
                  operationId: listStargazers
                  responses: {'200': {description: ok, content: {application/json: {schema: {type: object, title: Simple User, properties: {login: {type: string}}}}}}}
              /me:
                get:
                  operationId: me
                  responses: {'200': {description: ok, content: {application/json: {schema: {type: object, title: Me, properties: {id: {type: integer}}}}}}}
            """)
        #expect(text.contains("public struct SimpleUser: Codable"))
        #expect(text.contains("public static func listForks() async -> Result<SimpleUser, EndpointRouter.HTTPClientError>"))
        #expect(text.contains("public static func listStargazers() async -> Result<SimpleUser, EndpointRouter.HTTPClientError>"))
        #expect(!text.contains("ListForksResponse"))
        // A one-word title is often just the property's name: the contextual name stays.
        #expect(text.contains("public struct MeResponse: Codable"))
    }

    @Test func allOfOfObjectsIsOneFlattenedStruct() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                NewPet: {type: object, required: [name], properties: {name: {type: string}, tag: {type: string}}}
                Pet:
                  allOf:
                    - $ref: '#/components/schemas/NewPet'
                    - {type: object, required: [id], properties: {id: {type: integer, format: int64}}}
            """)
        #expect(
            text.contains(
                "public struct Pet: Codable, Sendable, Hashable {\n    public var name: String\n    public var tag: String?\n    public var id: Int64\n"
            ))
    }

    @Test func recursiveSchemasAreStoredOutOfLine() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                Node:
                  type: object
                  properties:
                    parent: {$ref: '#/components/schemas/Node'}
                    children: {type: array, items: {$ref: '#/components/schemas/Node'}}
            """)
        #expect(text.contains("@TAPI.Indirect public var parent: Node?\n"))
        #expect(text.contains("    public var children: [Node]?\n"))
        #expect(text.contains("struct Indirect<Value: Codable & Sendable & Hashable>"))
    }

    @Test func identifiersAreSanitised() throws {
        let (text, _) = try generate(
            """
            paths: {}
            components:
              schemas:
                Error: {type: object, properties: {message: {type: string}}}
                2fa-settings:
                  type: object
                  properties:
                    default: {type: string}
                    first-name: {type: string}
                    first_name: {type: string}
                    self: {type: string}
                    2nd: {type: string}
            """)
        #expect(text.contains("public struct TError: Codable"))
        #expect(text.contains("public struct _2faSettings: Codable"))
        #expect(text.contains("public var `default`: String?"))
        #expect(text.contains("public var firstName: String?"))
        #expect(text.contains("public var firstName2: String?"))
        #expect(text.contains("public var selfValue: String?"))
        #expect(text.contains("public var _2nd: String?"))
        #expect(text.contains("case firstName = \"first-name\""))
        #expect(text.contains("case firstName2 = \"first_name\""))
        #expect(text.contains("case selfValue = \"self\""))
    }

    @Test func operationsBecomeCasesWithPathSegmentsQueryStylesHeadersAndBodies() throws {
        let (text, _) = try generate(
            """
            paths:
              /users/{user-id}/files/{name}.{ext}:
                parameters:
                  - {name: user-id, in: path, required: true, schema: {type: integer}}
                get:
                  operationId: get-file
                  parameters:
                    - {name: name, in: path, required: true, schema: {type: string}}
                    - {name: ext, in: path, required: true, schema: {type: string}}
                    - {name: ids, in: query, explode: false, schema: {type: array, items: {type: integer}}}
                    - {name: X-Trace, in: header, schema: {type: string}}
                  responses:
                    '200': {description: ok, content: {application/json: {schema: {type: string}}}}
              /users:
                post:
                  requestBody:
                    required: true
                    content: {application/json: {schema: {type: object, properties: {name: {type: string}}}}}
                  responses: {'201': {description: created}}
            """)
        #expect(text.contains("case getFile(userId: Int, name: String, ext: String, ids: [Int]? = nil, xTrace: String? = nil)"))
        #expect(text.contains("case postUsers(_ body: PostUsersRequest)"))
        #expect(
            text.contains(
                "case .getFile(let userId, let name, let ext, _, _): return \"users/\\(segment: userId)/files/\\(segment: name).\\(segment: ext)\""
            ))
        #expect(text.contains("case .getFile(_, _, _, let ids, _): return [\"ids\": ids as Any]"))
        #expect(text.contains("case .getFile: EndpointRouter.QueryStyle(arrays: .commaSeparated)"))
        #expect(text.contains("case .getFile(_, _, _, _, let xTrace): return TAPI.headerFields([\"X-Trace\": xTrace])"))
        #expect(text.contains("case .postUsers(let body): return .json(body)"))
        #expect(
            text.contains(
                "public static func getFile(userId: Int, name: String, ext: String, ids: [Int]? = nil, xTrace: String? = nil) async -> Result<String, EndpointRouter.HTTPClientError>"
            ))
        #expect(
            text.contains(
                "public static func postUsers(_ body: PostUsersRequest) async -> Result<EndpointRouter.EmptyResponse, EndpointRouter.HTTPClientError>"
            ))
    }

    @Test func deepObjectQueryIsSentAsNestedKeys() throws {
        let (text, _) = try generate(
            """
            paths:
              /pets:
                get:
                  operationId: list
                  parameters:
                    - name: sort
                      in: query
                      style: deepObject
                      schema: {type: object, properties: {by: {type: string}}}
                  responses: {'200': {description: ok}}
            """)
        #expect(text.contains("case .list(let sort): return [\"sort\": sort.map { TAPI.queryObject($0) } as Any]"))
        #expect(text.contains("static func queryObject(_ value: some Encodable) -> Any"))
    }

    @Test func streamingResponsesUseEventsAndJSONLines() throws {
        let (text, _) = try generate(
            """
            paths:
              /events:
                get:
                  operationId: watch
                  responses: {'200': {description: ok, content: {text/event-stream: {schema: {type: string}}}}}
              /logs:
                get:
                  operationId: tail
                  responses: {'200': {description: ok, content: {application/x-ndjson: {schema: {type: object, properties: {line: {type: string}}}}}}}
            """)
        #expect(
            text.contains(
                "public static func watch() -> EndpointRouter.ResponseStream<EndpointRouter.ServerSentEvent> {\n        TAPI.watch.events()"
            ))
        #expect(
            text.contains(
                "public static func tail() -> EndpointRouter.ResponseStream<TailLine> {\n        TAPI.tail.jsonLines(of: TailLine.self)"))
    }

    @Test func securitySchemesBecomeCredentialsAndServersWithVariablesFunctions() throws {
        let (text, warnings) = try generate(
            """
            servers:
              - url: '{scheme}://api.example.com/{version}'
                variables:
                  scheme: {default: https, enum: [https, http]}
                  version: {default: v2}
            security: [{token: []}]
            paths:
              /health:
                get: {operationId: health, security: [], responses: {'204': {description: ok}}}
              /me:
                get: {operationId: me, responses: {'200': {description: ok}}}
            components:
              securitySchemes:
                token: {type: http, scheme: bearer}
                login: {type: http, scheme: basic}
                key: {type: apiKey, in: header, name: X-API-Key}
                queryKey: {type: apiKey, in: query, name: api_key}
                cookie: {type: apiKey, in: cookie, name: session}
            """)
        #expect(text.contains("public static let defaultServer: String? = \"https://api.example.com/v2\""))
        #expect(
            text.contains(
                "public static func server1(scheme: String = \"https\", version: String = \"v2\") -> String { \"\\(scheme)://api.example.com/\\(version)\" }"
            ))
        #expect(text.contains("public static func token(_ token: String) -> EndpointRouter.Credential { .bearer(token) }"))
        #expect(
            text.contains(
                "public static func login(username: String, password: String) -> EndpointRouter.Credential { .basic(username: username, password: password) }"
            ))
        #expect(
            text.contains("public static func key(_ key: String) -> EndpointRouter.Credential { .header(name: \"X-API-Key\", value: key) }")
        )
        #expect(
            text.contains(
                "public static func queryKey(_ key: String) -> EndpointRouter.Credential { .query(name: \"api_key\", value: key) }"))
        #expect(text.contains("case .health: TAPI.activeConfiguration.middlewares(host: host, authorized: false)"))
        #expect(warnings.contains { $0.hasPrefix("warning: #/components/securitySchemes/cookie:") })
    }

    @Test func operationsWithoutOperationIdAreNamedFromMethodAndPath() throws {
        let (text, _) = try generate(
            """
            paths:
              /search/{version}/geocode/{query}.{ext}:
                get:
                  parameters:
                    - {name: version, in: path, required: true, schema: {type: integer}}
                    - {name: query, in: path, required: true, schema: {type: string}}
                    - {name: ext, in: path, required: true, schema: {type: string}}
                  responses: {'200': {description: ok}}
            """)
        #expect(text.contains("case getSearchGeocode(version: Int, query: String, ext: String)"))
    }

    @Test func lenientPrePassFixesAndNamesEachPointer() throws {
        let (_, warnings) = try generate(
            """
            paths:
              /a:
                get:
                  operationId: a
                  parameters:
                    - name: n
                      in: query
                      schema: {type: integer, maximum: 9223372036854776000, minimum: 0, exclusiveMinimum: true}
                  responses:
                    '200': {description: ok}
                    404/596: {description: odd}
            """)
        #expect(warnings.contains { $0.hasPrefix("warning: #/paths/~1a/get/parameters/0/schema/maximum: integer bound") })
        #expect(
            warnings.contains { $0.hasPrefix("warning: #/paths/~1a/get/parameters/0/schema/exclusiveMinimum: a boolean exclusiveMinimum") })
        #expect(warnings.contains { $0.hasPrefix("warning: #/paths/~1a/get/responses/404~1596: '404/596' is not a status code") })
    }

    @Test func openAPIKitProblemsAreWarningsWithTheirPointerAndGenerationGoesOn() throws {
        // A path template variable no parameter declares, and a $ref to a missing component.
        for version in ["3.0.3", "3.1.0"] {
            let (text, warnings) = try generate(
                """
                paths:
                  /pets/{petId}:
                    get:
                      operationId: showPet
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema: {$ref: '#/components/schemas/Missing'}
                components:
                  schemas:
                    Pet: {type: object, properties: {name: {type: string}}}
                """, version: version)
            #expect(text.contains("case showPet"), "\(version)")
            #expect(text.contains("public struct Pet: Codable"), "\(version)")
            #expect(
                warnings.contains {
                    $0.hasPrefix("warning: #/paths/~1pets~1{petId}/get: OpenAPIKit:") && $0.contains("petId")
                }, "\(version): \(warnings)")
            #expect(
                warnings.contains {
                    $0.hasPrefix("warning: #/paths/~1pets~1{petId}/get/responses/200/content/application~1json/schema: OpenAPIKit:")
                        && $0.contains("#/components/schemas/Missing")
                }, "\(version): \(warnings)")
        }
    }

    @Test func aPathParameterMissingFromTheTemplateIsAWarning() throws {
        let (text, warnings) = try generate(
            """
            paths:
              /pets:
                get:
                  operationId: listPets
                  parameters:
                    - {name: petId, in: path, required: true, schema: {type: string}}
                  responses:
                    '200': {description: ok}
            """)
        #expect(text.contains("case listPets(petId: String)"))
        let expected =
            "warning: #/paths/~1pets/get/parameters/0: path parameter 'petId' is not in the path template '/pets'; its value is not sent"
        #expect(warnings.contains(expected), "\(warnings)")
    }

    @Test func aDocumentOpenAPIKitCannotReadStillGeneratesWithOneWarning() throws {
        // OpenAPIKit requires a response's description; the generator does not need it.
        let (text, warnings) = try generate(
            """
            paths:
              /a:
                get:
                  operationId: getA
                  responses:
                    '200': {content: {application/json: {schema: {type: string}}}}
            """, version: "3.0.3")
        #expect(text.contains("case getA"))
        let fromOpenAPIKit = warnings.filter { $0.contains("OpenAPIKit:") }
        #expect(fromOpenAPIKit.count == 1, "\(warnings)")
        #expect(fromOpenAPIKit.first?.hasPrefix("warning: #/paths/~1a/get/responses/200: OpenAPIKit:") == true, "\(warnings)")
    }

    @Test func aValidDocumentGivesNoOpenAPIKitWarning() throws {
        let (_, warnings) = try generate(
            """
            servers: [{url: 'https://{region}.example.com', variables: {region: {default: eu}}}]
            paths:
              /pets/{petId}:
                get:
                  operationId: showPet
                  parameters:
                    - {name: petId, in: path, required: true, schema: {type: string}}
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {$ref: '#/components/schemas/Pet'}
                          examples: {rex: {$ref: '#/components/examples/rex'}, tom: {value: {name: Tom, example: e}}}
            components:
              schemas:
                Pet:
                  type: object
                  example: {name: Rex}
                  properties: {name: {type: string}, example: {type: string, example: a property named example}}
              examples:
                rex: {summary: a dog, value: {name: Rex}}
            """, version: "3.0.3")
        // Example values are not given to OpenAPIKit (they cost time and it checks nothing in
        // them), but the keys stay: the reference to `rex` resolves, the property named example stays.
        #expect(warnings.isEmpty, "\(warnings)")
    }

    @Test func documentsThatCannotBeGeneratedFailWithAClearMessage() {
        #expect(throws: GenerationFailure.self) { try OpenAPIGenerator.generate("swagger: '2.0'\ninfo: {title: x}") }
        #expect(throws: GenerationFailure.self) { try OpenAPIGenerator.generate("openapi: 2.5.0\ninfo: {title: x}") }
        #expect(throws: GenerationFailure.self) { try OpenAPIGenerator.generate("{ this is: [not yaml") }
        do {
            _ = try OpenAPIGenerator.generate("swagger: '2.0'")
        } catch {
            #expect(error.description.contains("Swagger 2.0"))
        }
    }

    @Test func jsonDocumentsInFastAPIStyleKeepEveryNullableField() throws {
        let json = """
            {"openapi": "3.1.0", "info": {"title": "F", "version": "1"},
             "paths": {"/items/{item_id}": {"get": {"operationId": "read_item_items__item_id__get",
               "parameters": [{"name": "item_id", "in": "path", "required": true, "schema": {"type": "integer"}},
                              {"name": "q", "in": "query", "schema": {"anyOf": [{"type": "string"}, {"type": "null"}]}}],
               "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}}}}}},
             "components": {"schemas": {"Item": {"type": "object", "required": ["name"], "properties": {
               "name": {"type": "string"},
               "tax": {"anyOf": [{"type": "number"}, {"type": "null"}]},
               "created": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
               "tags": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
               "loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}}}}}
            """
        let result = try OpenAPIGenerator.generate(json, options: GeneratorOptions(service: "F"))
        let text = result.files.map(\.contents).joined()
        #expect(text.contains("case readItemItemsItemIdGet(itemId: Int, q: String? = nil)"))
        #expect(text.contains("public var tax: Double?\n"))
        #expect(text.contains("public var created: Date?\n"))
        #expect(text.contains("public var loc: [ItemLocItem]?\n"))
        #expect(text.contains("public var tags: [String?]?\n"))
        #expect(text.contains("public enum ItemLocItem: Codable, Sendable, Hashable {\n    case string(String)\n    case int(Int)\n"))
    }
}
