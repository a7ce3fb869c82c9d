import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The baselines of the request-building benchmark: the hand-written Foundation code a user would
/// write instead of the library, producing the same requests as ``BuildAPI``.
public enum ManualBuilding {
    /// One encoder for the whole process, as careful hand-written code keeps it.
    public static let encoder = JSONEncoder()

    /// POST with 3 query items, `Content-Type` and `Authorization`, body from `JSONSerialization`.
    public static func postJSONSerialization() throws -> URLRequest {
        var request = try postHead()
        request.httpBody = try JSONSerialization.data(withJSONObject: NewTodo.dictionary)
        return request
    }

    /// The same with the body from a shared `JSONEncoder` (like-for-like with an `Encodable` body).
    public static func postJSONEncoder() throws -> URLRequest {
        var request = try postHead()
        request.httpBody = try encoder.encode(NewTodo())
        return request
    }

    /// GET with 5 query items and `Authorization`.
    public static func getFiveQueryItems() throws -> URLRequest {
        guard var components = URLComponents(string: "\(buildHost)/todos") else { throw URLError(.badURL) }
        components.queryItems = [
            URLQueryItem(name: "userId", value: "1"),
            URLQueryItem(name: "completed", value: "false"),
            URLQueryItem(name: "_limit", value: "20"),
            URLQueryItem(name: "_sort", value: "title"),
            URLQueryItem(name: "q", value: "quis ut"),
        ]
        guard let url = components.url else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.setValue(bearerToken, forHTTPHeaderField: "Authorization")
        return request
    }

    private static func postHead() throws -> URLRequest {
        guard var components = URLComponents(string: "\(buildHost)/todos") else { throw URLError(.badURL) }
        components.queryItems = [
            URLQueryItem(name: "userId", value: "1"),
            URLQueryItem(name: "completed", value: "false"),
            URLQueryItem(name: "_limit", value: "20"),
        ]
        guard let url = components.url else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(bearerToken, forHTTPHeaderField: "Authorization")
        return request
    }
}
