import EndpointRouter
import EndpointRouterTesting
import Foundation

/// The servers of every scenario, stubbed: a `StubTransport` answering from the files in `Fixtures/`,
/// so `swift run example` runs without a network. It matches paths, not hosts: JSONPlaceholder's,
/// httpbin's and Stack Exchange's paths do not overlap. It answers as the real servers do, echoing
/// what it received where they echo, so a scenario's checks mean the same in both modes.
enum OfflineServer {
    static func makeTransport() -> StubTransport {
        let fixtures = Fixtures.directory
        let stub = StubTransport()

        // JSONPlaceholder
        stub.on(.get, "/todos") { request in
            // Like JSONPlaceholder: a query item filters on the field of that name.
            let userId = request.queryItems["userId"].flatMap(Int.init)
            let completed = request.queryItems["completed"].flatMap(Bool.init)
            return .json(allTodos().filter { (userId ?? $0.userId) == $0.userId && (completed ?? $0.completed) == $0.completed })
        }
        stub.on(.get, "/todos/:id") { request in
            guard let todo = todo(request.parameters["id"]) else { return .fixture("error-404.json", in: fixtures, status: 404) }
            return .json(todo)
        }
        stub.on(.post, "/todos") { request in
            guard let new = try? request.decodeBody(as: NewTodo.self) else { return .fixture("error-422.json", in: fixtures, status: 422) }
            return .json(Todo(userId: new.userId, id: 201, title: new.title, completed: new.completed), status: 201)
        }
        stub.on(.post, "/posts") { request in
            // Like JSONPlaceholder: the fields back as text, with the id of the next post.
            let fields = formFields(String(decoding: request.body, as: UTF8.self))
            guard let title = fields["title"] else { return .fixture("error-422.json", in: fixtures, status: 422) }
            return .json(CreatedPostEcho(id: 101, title: title, body: fields["body"] ?? "", userId: fields["userId"] ?? ""), status: 201)
        }
        stub.on(.put, "/todos/:id") { request in
            .data(request.body, headers: ["Content-Type": "application/json"])
        }
        stub.on(.patch, "/todos/:id") { request in
            guard var todo = todo(request.parameters["id"]) else { return .fixture("error-404.json", in: fixtures, status: 404) }
            todo.completed = true
            return .json(todo)
        }
        stub.on(.delete, "/todos/:id", respond: .json("{}"))

        // httpbin
        stub.on(.get, "/headers") { request in
            .json(["headers": Dictionary(request.headers.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })])
        }
        stub.on(.post, "/post") { request in
            // A `.file` body is not read by the stub; the route reads the file, as a server would.
            let sent = request.bodyFile.map { (try? Data(contentsOf: $0)) ?? Data() } ?? request.body
            let contentType = request.headers["Content-Type"]
            if contentType?.hasPrefix("multipart/form-data") == true {
                guard let parts = MultipartParts(body: sent, contentType: contentType) else {
                    return .json(#"{"error": "a malformed multipart/form-data body"}"#, status: 400)
                }
                return .json(parts.echo)
            }
            return .json(UploadEcho(data: UploadEcho.text(of: sent, contentType: contentType)))
        }
        stub.on(.get, "/image/png", respond: .fixture("image.png", in: fixtures))
        stub.on(.get, "/bytes/:count") { request in
            // The first `count` bytes of download.bin, sized like httpbin's, so progress knows the total.
            let bytes = (Fixtures.data("download.bin") ?? Data()).prefix(Int(request.parameters["count"] ?? "") ?? 0)
            return .data(bytes, headers: ["Content-Type": "application/octet-stream", "Content-Length": String(bytes.count)])
        }

        stub.on(.get, "/stream/:count") { request in
            // Like httpbin: one JSON object per line, numbered from 0.
            let count = min(100, Int(request.parameters["count"] ?? "") ?? 0)
            let lines = (0..<count).map { #"{"id": \#($0), "url": "\#(request.url.absoluteString)"}"# + "\n" }
            return .data(Data(lines.joined().utf8), headers: ["Content-Type": "application/json"])
        }

        // Stack Exchange
        stub.on(.get, "/2.3/questions", query: ["site": "stackoverflow"], respond: .fixture("questions.json", in: fixtures))
        return stub
    }

    private static func allTodos() -> [Todo] {
        guard let data = Fixtures.data("todos.json"), let todos = try? JSONDecoder().decode([Todo].self, from: data) else { return [] }
        return todos
    }

    private static func todo(_ id: String?) -> Todo? {
        guard let id = id.flatMap(Int.init) else { return nil }
        return allTodos().first { $0.id == id }
    }

    /// `a=1&b=x%20y` as `["a": "1", "b": "x y"]`.
    private static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    /// What JSONPlaceholder answers to a post sent as a form: every field as text, `userId` too.
    private struct CreatedPostEcho: Encodable, Sendable {
        let id: Int
        let title: String
        let body: String
        let userId: String
    }
}
