/// One operation of the document, read into what the service enum needs.
struct Operation {
    enum Location: String { case path, query, header }
    enum Serialization {
        /// The value as the library writes it: scalars as text, arrays by the case's query style.
        case plain
        /// `deepObject` (and objects in general): nested keys `name[key]=value`.
        case object
        /// `content: application/json`: the value as JSON text.
        case jsonText
    }
    struct Parameter {
        var key: String
        var label: String
        var location: Location
        var type: SwiftTypeReference
        var isOptional: Bool
        var serialization: Serialization
        /// `false` for a non-exploded `form` array: `ids=1,2`.
        var explode: Bool
    }
    enum BodyKind {
        case json
        case form
        case multipart
        case text(String)
        case data(String)
    }
    struct Body {
        var type: SwiftTypeReference
        var kind: BodyKind
        var isOptional: Bool
    }
    enum Success {
        case decoded(SwiftTypeReference)
        case empty
        case events
        case jsonLines(SwiftTypeReference)
        case lines
        /// A JSON string (`"text"`): `request(type: String.self)` would give the quoted JSON text,
        /// so the body is decoded as JSON.
        case jsonString
    }

    /// How a streamed answer is read: by the only call when streaming is all the operation
    /// answers, or by a second call beside the ordinary one.
    enum Stream {
        /// `text/event-stream`, each event's data decoded as the event schema's type.
        case decodedEvents(SwiftTypeReference)
        /// `text/event-stream` as ``EndpointRouter/ServerSentEvent``s (no schema, or a string one).
        case events
        /// JSON Lines, one value per line.
        case jsonLines(SwiftTypeReference)
        /// Lines declared as strings: read as text.
        case lines
    }
    /// A second front-door call for an answer the operation also gives as a stream, chosen by
    /// `Accept` (`createChat` answers JSON; `createChatEvents` the same request as events).
    struct StreamCall {
        var name: String
        var media: String
        var kind: Stream
    }

    var caseName: String
    var method: String
    var path: String
    var summary: String?
    /// The whole description, when the summary is not already all of it.
    var description: String?
    var parameters: [Parameter]
    var body: Body?
    var success: Success
    var errorTypes: [String]
    var extraSuccessStatuses: [Int]
    var requiresAuthorization: Bool
    /// The media type the ordinary call asks for with `Accept`, when the success answer has
    /// several (JSON or a stream); `nil` sends none.
    var accept: String?
    var streamCall: StreamCall?
    /// `deprecated: true`: the case and its call are marked `@available(*, deprecated)`.
    var isDeprecated: Bool

    /// Associated values in declaration order: required ones, then optional ones, the body last.
    var associatedValues: [(label: String, isBody: Bool)] {
        orderedParameters.map { ($0.label, false) } + (body.map { _ in [("body", true)] } ?? [])
    }

    /// Path parameters in the order of the path, then the other required ones, then optional ones.
    var orderedParameters: [Parameter] {
        let pathOrder = parameters.filter { $0.location == .path }.sorted {
            (path.range(of: "{\($0.key)}")?.lowerBound ?? path.endIndex) < (path.range(of: "{\($1.key)}")?.lowerBound ?? path.endIndex)
        }
        let rest = parameters.filter { $0.location != .path }
        return pathOrder + rest.filter { !$0.isOptional } + rest.filter(\.isOptional)
    }
}
