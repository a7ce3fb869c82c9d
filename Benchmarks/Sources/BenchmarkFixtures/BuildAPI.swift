import EndpointRouter
import Foundation

/// The three requests of the request-building benchmark, as a library user writes them.
///
/// - `postDictionary`: POST `/todos?userId=1&completed=false&_limit=20`, `Authorization`, and the
///   60-byte body from `[String: Any]` (`parameters` of a POST become the JSON body, so the query is
///   written in the endpoint);
/// - `postEncodable`: the same with an `Encodable` body (`parameters` then go to the query);
/// - `getFiveQueryItems`: GET `/todos` with 5 query parameters and `Authorization`.
public enum BuildAPI: HTTPClient {
    case postDictionary
    case postEncodable
    case getFiveQueryItems

    public var host: String { buildHost }
    public var endpoint: String {
        switch self {
        case .postDictionary: "todos?userId=1&completed=false&_limit=20"
        case .postEncodable, .getFiveQueryItems: "todos"
        }
    }
    public var method: RequestMethod {
        if case .getFiveQueryItems = self { .get } else { .post }
    }
    public var parameters: [String: Any]? {
        switch self {
        case .postDictionary: NewTodo.dictionary
        case .postEncodable: ["userId": 1, "completed": false, "_limit": 20]
        case .getFiveQueryItems: ["userId": 1, "completed": false, "_limit": 20, "_sort": "title", "q": "quis ut"]
        }
    }
    public var body: EndpointBody? {
        if case .postEncodable = self { .json(NewTodo()) } else { nil }
    }
    public var headers: [String: String]? { ["Authorization": bearerToken] }
}
