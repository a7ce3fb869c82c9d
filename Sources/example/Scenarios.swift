import EndpointRouter
import EndpointRouterTesting
import Foundation

// The scenarios, in the order users meet them in the tutorials this example answers. Each passes
// `wire` (a LoggingMiddleware) as a per-call middleware, so its block shows what went out.
//
// Online, JSONPlaceholder serves what it can; what it cannot goes to a public service that can:
// headers, multipart and file uploads, image and download to httpbin (it echoes headers and bodies, serves
// images and sized files), the wrapped list to the Stack Exchange API the protocol-oriented tutorial
// uses. So every scenario runs in both modes, and no scenario is "offline only".
extension Scenario {
    static let all: [Scenario] = [
        list, getByID, queryParameters, headers, jsonBody, formBody, replaceCompleteDelete,
        multipartUpload, fileUpload, imageAsData, downloadToFile, typedNotFound, wrappedList, jsonLines,
        serverSentEvents,
    ]

    static let list = Scenario("A list: GET /todos") { wire in
        switch await JSONPlaceholder.todos.request(type: [Todo].self, middlewares: [wire]) {
        case .success(let todos) where !todos.isEmpty:
            .passed("\(todos.count) todos, \(todos.filter(\.completed).count) completed")
        case .success: .failed("the list is empty")
        case .failure(let error): .failed(error.localizedDescription)
        }
    }

    static let getByID = Scenario("One item by id: GET /todos/3") { wire in
        switch await JSONPlaceholder.todo(id: 3).request(type: Todo.self, middlewares: [wire]) {
        case .success(let todo) where todo.id == 3:
            .passed("#\(todo.id) \"\(todo.title)\", completed: \(todo.completed)")
        case .success(let todo): .failed("asked for #3, got #\(todo.id)")
        case .failure(let error): .failed(error.localizedDescription)
        }
    }

    static let queryParameters = Scenario("Query parameters: the completed todos of user 1") { wire in
        // `parameters` go to the query for a GET, sorted, booleans as true/false.
        let result = await JSONPlaceholder.filteredTodos(userId: 1, completed: true)
            .request(type: [Todo].self, timeout: 5, middlewares: [wire])
        switch result {
        case .success(let todos) where !todos.isEmpty && todos.allSatisfy({ $0.userId == 1 && $0.completed }):
            return .passed("\(todos.count) completed todos of user 1: ids \(todos.map(\.id))")
        case .success(let todos): return .failed("the server did not filter: \(todos.count) todos, some of other users or not completed")
        case .failure(let error): return .failed(error.localizedDescription)
        }
    }

    static let headers = Scenario("Headers: the endpoint's Authorization and a per-call X-Correlation-ID", showsHeaders: true) { wire in
        // (Not X-Request-ID: httpbin leaves that one out of its echo, with other proxy headers.)
        let correlationID = "example-42"
        // httpbin answers {"headers": {...}}: decode the dictionary at the key path "headers".
        let result = await HTTPBin.headers.request(
            type: [String: String].self, at: "headers",
            headers: ["X-Correlation-ID": correlationID], middlewares: [wire])
        switch result {
        case .success(let received):
            // Servers may change the case of header names (httpbin answers X-Correlation-Id).
            func value(_ name: String) -> String? { received.first { $0.key.lowercased() == name.lowercased() }?.value }
            guard value("X-Correlation-ID") == correlationID else {
                return .failed("the server did not receive X-Correlation-ID: \(correlationID)")
            }
            guard value("Authorization") != nil else { return .failed("the server did not receive the Authorization header") }
            return .passed(
                "the server received X-Correlation-ID: \(correlationID) and an Authorization header (its value stays out of the log)")
        case .failure(let error):
            return .failed(error.localizedDescription)
        }
    }

    static let jsonBody = Scenario("A JSON body: POST /todos") { wire in
        let new = NewTodo(userId: 1, title: "Try EndpointRouter", completed: false)
        // `response` rather than `request`: the status code and headers come with the value.
        switch await JSONPlaceholder.createTodo(new).response(type: Todo.self, middlewares: [wire]) {
        case .success(let response) where response.statusCode == 201 && response.value.title == new.title:
            return .passed("status 201, created #\(response.value.id) \"\(response.value.title)\"")
        case .success(let response): return .failed("status \(response.statusCode), title \"\(response.value.title)\"")
        case .failure(let error): return .failed(error.localizedDescription)
        }
    }

    static let formBody = Scenario("A form body: POST /posts as application/x-www-form-urlencoded") { wire in
        let title = "Forms & bodies"
        let result = await JSONPlaceholder.createPost(title: title, body: "Sent as an HTML form would send it", userId: 1)
            .response(type: CreatedPost.self, middlewares: [wire])
        switch result {
        case .success(let response) where response.value.title == title:
            return .passed("status \(response.statusCode), created post #\(response.value.id) \"\(response.value.title)\"")
        case .success(let response): return .failed("the server read the title as \"\(response.value.title)\"")
        case .failure(let error): return .failed(error.localizedDescription)
        }
    }

    static let replaceCompleteDelete = Scenario("PUT, PATCH and DELETE: replace #1, complete #2, delete #1") { wire in
        let replacement = Todo(userId: 1, id: 1, title: "Replaced title", completed: true)
        let replaced = await JSONPlaceholder.replaceTodo(replacement).request(type: Todo.self, middlewares: [wire])
        let completed = await JSONPlaceholder.completeTodo(id: 2).request(type: Todo.self, middlewares: [wire])
        // EmptyResponse accepts any body or none: DELETE answers `{}` here, 204 elsewhere.
        let deleted = await JSONPlaceholder.deleteTodo(id: 1).response(type: EmptyResponse.self, middlewares: [wire])
        switch (replaced, completed, deleted) {
        case (.success(let todo), .success(let done), .success(let response))
        where todo.title == replacement.title && done.id == 2 && done.completed:
            return .passed("#1 is now \"\(todo.title)\"; #2 completed: \(done.completed); DELETE answered \(response.statusCode)")
        case (.failure(let error), _, _), (_, .failure(let error), _), (_, _, .failure(let error)):
            return .failed(error.localizedDescription)
        default:
            return .failed("an answer did not reflect the change")
        }
    }

    static let multipartUpload = Scenario("A multipart upload: a caption and a PNG, with upload progress") { wire in
        guard let png = Fixtures.data("image.png") else { return .failed("Fixtures/image.png cannot be read") }
        let caption = "A 16×16 gradient"
        var form = MultipartFormData()
        form.append(caption, name: "caption")
        form.append(png, name: "photo", fileName: "gradient.png", mimeType: "image/png")
        let progress = ProgressLog()
        switch await HTTPBin.upload(form).response(type: UploadEcho.self, middlewares: [wire], uploadProgress: progress.record) {
        case .success(let response):
            let echo = response.value
            guard echo.form["caption"] == caption else { return .failed("the server read caption as \(echo.form["caption"] ?? "nothing")") }
            let received = echo.files["photo"].flatMap(UploadEcho.byteCount(of:)) ?? 0
            guard received == png.count else { return .failed("the server received \(received) of the photo's \(png.count) bytes") }
            return .passed("the server read caption \"\(caption)\" and photo (\(png.count) bytes); upload progress: \(progress.summary)")
        case .failure(let error):
            return .failed(error.localizedDescription)
        }
    }

    static let fileUpload = Scenario("A file upload streamed from disk: .file(URL) as the whole body, with upload progress") { wire in
        let file = Fixtures.directory.appendingPathComponent("download.bin")
        guard let size = Fixtures.data("download.bin")?.count else { return .failed("Fixtures/download.bin cannot be read") }
        let progress = ProgressLog()
        // `.file` streams the body from disk: a large file is never read whole into memory.
        switch await HTTPBin.uploadFile(file).response(type: UploadEcho.self, middlewares: [wire], uploadProgress: progress.record) {
        case .success(let response):
            let received = UploadEcho.byteCount(of: response.value.data) ?? 0
            guard received == size else { return .failed("the server received \(received) of \(size) bytes") }
            return .passed("the server received all \(size) bytes of \(file.lastPathComponent); upload progress: \(progress.summary)")
        case .failure(let error):
            return .failed(error.localizedDescription)
        }
    }

    static let imageAsData = Scenario("An image as raw data: GET /image/png") { wire in
        // `Data` receives the body untouched: no JSON decoding.
        switch await HTTPBin.png.response(type: Data.self, middlewares: [wire]) {
        case .success(let response):
            let signature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            guard response.value.starts(with: signature), response.value.count >= 24 else {
                return .failed("\(response.value.count) bytes that are not a PNG")
            }
            // The width and height are the first fields of the IHDR chunk, big-endian.
            let number = { (offset: Int) in response.value.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | Int($1) } }
            let type = response.headers["Content-Type"] ?? "no Content-Type"
            return .passed("a \(number(16))×\(number(20)) PNG, \(response.value.count) bytes, \(type)")
        case .failure(let error):
            return .failed(error.localizedDescription)
        }
    }

    static let downloadToFile = Scenario("A download to a file, with progress") { wire in
        let count = 16_384
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("endpointrouter-example-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let progress = ProgressLog()
        // The body streams to the file, never whole in memory; the file appears only once complete.
        switch await HTTPBin.bytes(count: count, seed: 42).download(to: file, middlewares: [wire], progress: progress.record) {
        case .success(let response):
            let size = (try? FileManager.default.attributesOfItem(atPath: response.value.path)[.size] as? NSNumber)?.intValue ?? 0
            guard size == count, progress.last?.completedBytes == Int64(count) else {
                return .failed("\(size) of \(count) bytes on disk; progress: \(progress.summary)")
            }
            return .passed("\(size) bytes written to a temporary file (removed afterwards); progress: \(progress.summary)")
        case .failure(let error):
            return .failed(error.localizedDescription)
        }
    }

    static let typedNotFound = Scenario("A typed 404 with the API's error payload: GET /todos/9999") { wire in
        switch await JSONPlaceholder.todo(id: 9999).request(type: Todo.self, middlewares: [wire]) {
        case .failure(.unacceptableStatusCode(let response)) where response.statusCode == 404:
            // The failed response carries its body: decode the API's own error from it.
            let payload =
                (try? response.decode(APIError.self)).map { "\($0.error): \($0.message)" }
                ?? "no error payload in the body (\(response.data.count) bytes of \(response.headers["Content-Type"] ?? "no declared type"))"
            return .passed("expected .unacceptableStatusCode(404) — \(payload)")
        case .failure(let error): return .failed("expected a 404, got \(error.localizedDescription)")
        case .success(let todo): return .failed("expected a 404, found #\(todo.id)")
        }
    }

    static let wrappedList = Scenario("A wrapped response decoded at a key path: Stack Exchange's {\"items\": [...]}") { wire in
        // `at: "items"` decodes the array inside the envelope; no wrapper type to write.
        let result = await StackExchange.topQuestions(site: "stackoverflow", count: 3)
            .request(type: [Question].self, at: "items", middlewares: [wire])
        switch result {
        case .success(let questions) where !questions.isEmpty:
            let lines = questions.map { "\n      \($0.score) ▲ \($0.title) (by \($0.owner?.displayName ?? "someone"))" }
            return .passed("the top \(questions.count) questions:" + lines.joined())
        case .success: return .failed("no questions in items")
        case .failure(let error): return .failed(error.localizedDescription)
        }
    }

    static let jsonLines = Scenario("JSON lines as they arrive: httpbin's GET /stream/5, one object per line") { wire in
        // Each line is decoded as it arrives; a slow or endless stream works the same way.
        var ids: [Int] = []
        do {
            for try await line in HTTPBin.stream(count: 5).jsonLines(of: StreamedLine.self, middlewares: [wire]) {
                ids.append(line.id)
            }
        } catch {
            return .failed(error.localizedDescription)
        }
        return ids == [0, 1, 2, 3, 4] ? .passed("5 lines decoded in order: ids \(ids)") : .failed("expected ids 0...4, got \(ids)")
    }

    static let serverSentEvents = Scenario(
        "Server-Sent Events: a chat completion streamed token by token (a local stub server in both modes)"
    ) {
        wire in
        // No public test API streams events, so this one always answers from the chat stub.
        var tokens: [String] = []
        do {
            try await withTransport(ChatStub.transport) {
                for try await event in ChatStub.API.completions(prompt: "Say hello").events(middlewares: [wire]) {
                    if event.event == "done" { break }
                    tokens.append(event.data)
                }
            }
        } catch {
            return .failed(error.localizedDescription)
        }
        let text = tokens.joined()
        return text == "Hello, world!" ? .passed("\(tokens.count) events → \"\(text)\"") : .failed("got \"\(text)\"")
    }
}
