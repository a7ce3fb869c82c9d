import EndpointRouter
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// These suites talk to a real httpbin server named by HTTPBIN_URL and are skipped without it.
// CI sets HTTPBIN_REQUIRED=1 as well, so a missing server fails instead of skipping silently.

extension Trait where Self == ConditionTrait {
    /// Skips a suite without an httpbin server, saying how to run it, so `swift test` never lists
    /// skipped suites without a reason.
    static var needsHTTPBin: Self {
        .enabled(
            if: ProcessInfo.processInfo.environment["HTTPBIN_URL"] != nil,
            "needs an httpbin server: .ci/run starts one, or set HTTPBIN_URL=http://127.0.0.1:PORT")
    }
}

@Suite("httpbin configuration")
struct HTTPBinConfigurationTests {
    @Test(
        "HTTPBIN_REQUIRED=1 demands HTTPBIN_URL",
        .enabled(
            if: ProcessInfo.processInfo.environment["HTTPBIN_REQUIRED"] == "1",
            "runs only when HTTPBIN_REQUIRED=1, as in .ci/run"))
    func serverIsConfiguredWhenRequired() throws {
        let url = try #require(
            ProcessInfo.processInfo.environment["HTTPBIN_URL"],
            "HTTPBIN_REQUIRED=1 but HTTPBIN_URL is not set: start httpbin (python -m httpbin.core --port P --host 127.0.0.1) and set HTTPBIN_URL=http://127.0.0.1:P; the httpbin suites would otherwise be skipped"
        )
        let components = try #require(URLComponents(string: url), "HTTPBIN_URL '\(url)' is not a URL")
        #expect(components.scheme == "http" || components.scheme == "https", "HTTPBIN_URL '\(url)' needs an http(s) scheme")
        #expect(components.host?.isEmpty == false, "HTTPBIN_URL '\(url)' names no host")
    }
}

// MARK: - Methods

@Suite(.needsHTTPBin)
struct HTTPBinMethodTests {
    @Test(
        "Every method reaches /anything with its parameters",
        arguments: [
            RequestMethod.get, .post, .put, .patch, .delete,
        ])
    func anything(method: RequestMethod) async throws {
        let parameters: [String: Any] = ["name": "a+b & c", "n": 7]
        let response = try await HTTPBin.anything(method, parameters: parameters).response(type: Echo.self).get()
        #expect(response.statusCode == 200)
        #expect(response.value.method == method.rawValue)
        if method.encodesParametersInQuery {
            #expect(response.value.args == ["name": "a+b & c", "n": "7"])
            #expect(response.value.json == nil)
            #expect(response.value.data == "")
        } else {
            #expect(response.value.args == [:])
            #expect(response.value.json == ["name": "a+b & c", "n": 7])
            #expect(response.value.headers["Content-Type"] == "application/json")
        }
    }

    @Test(
        "Method routes answer their own method",
        arguments: [
            ("get", RequestMethod.get), ("post", .post), ("put", .put), ("patch", .patch), ("delete", .delete),
        ])
    func methodRoute(route: String, method: RequestMethod) async throws {
        let response = try await HTTPBin.methodRoute(route: route, method: method).response(type: Echo.self).get()
        #expect(response.statusCode == 200)
        #expect(response.value.url == "\(HTTPBinServer.base)/\(route)")
    }

    @Test("A method route refuses another method with 405")
    func wrongMethodIs405() async {
        let result = await HTTPBin.methodRoute(route: "post", method: .get).request(type: Echo.self)
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode(405), got \(result)")
            return
        }
        #expect(response.statusCode == 405)
    }

    @Test("HEAD answers headers and no body")
    func head() async throws {
        let response = try await HTTPBin.head.response(type: EmptyResponse.self).get()
        #expect(response.statusCode == 200)
        #expect(response.data.isEmpty)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.request.method == .head)
    }

    @Test("OPTIONS answers the allowed methods")
    func options() async throws {
        let response = try await HTTPBin.options.response(type: EmptyResponse.self).get()
        #expect(response.statusCode == 200)
        #expect(response.request.method == .options)
        let allow = try #require(response.headers["allow"], "no Allow header in \(response.headers)")
        let methods = Set(allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(methods == ["GET", "HEAD", "OPTIONS"])
    }
}

// MARK: - Query strings

@Suite(.needsHTTPBin)
struct HTTPBinQueryTests {
    /// Values and keys that break naive encoders.
    static var hostile: [String: Any] {
        [
            "plus": "a+b",
            "amp": "a&b=c",
            "percent": "100%",
            "escape": "%41%zz",
            "accents": "ü é",
            "reserved": "/?#[]@!$'()*,;",
            "equals": "=",
            "spaces": "  two  spaces ",
            "emoji": "🚀👩‍💻",
            "empty": "",
            "a+b": "key with plus",
            "k&=?#": "key with reserved characters",
            "ü é 🚀": "unicode key",
            "100%": "key with percent",
            "list": ["x+y", "1&2", "ü é", ""],
            "nested": ["b": "c", "d e": "f&g=h", "deeper": ["z": "🚀"]],
            "yes": true,
            "no": false,
            "int": 42,
            "negative": -7,
            "double": 3.25,
        ]
    }

    @Test("Hostile keys and values round-trip through the query exactly")
    func hostileQueryRoundTrip() async throws {
        let response = try await HTTPBin.get(parameters: Self.hostile).response(type: Echo.self).get()
        let expected: [String: JSON] = [
            "plus": "a+b",
            "amp": "a&b=c",
            "percent": "100%",
            "escape": "%41%zz",
            "accents": "ü é",
            "reserved": "/?#[]@!$'()*,;",
            "equals": "=",
            "spaces": "  two  spaces ",
            "emoji": "🚀👩‍💻",
            "empty": "",
            "a+b": "key with plus",
            "k&=?#": "key with reserved characters",
            "ü é 🚀": "unicode key",
            "100%": "key with percent",
            "list[]": ["x+y", "1&2", "ü é", ""],
            "nested[b]": "c",
            "nested[d e]": "f&g=h",
            "nested[deeper][z]": "🚀",
            "yes": "true",
            "no": "false",
            "int": "42",
            "negative": "-7",
            "double": "3.25",
        ]
        #expect(response.value.args == expected)
    }

    @Test("Repeated-key arrays and numeric booleans")
    func repeatedKeyStyle() async throws {
        let style = QueryStyle(arrays: .repeatedKey, bools: .numeric)
        let parameters: [String: Any] = ["id": [1, 2, 3], "open": true, "closed": false, "tag": ["a+b", "c d"]]
        let response = try await HTTPBin.get(parameters: parameters, style: style).response(type: Echo.self).get()
        #expect(response.value.args == ["id": ["1", "2", "3"], "open": "1", "closed": "0", "tag": ["a+b", "c d"]])
    }

    @Test("Comma-separated arrays keep commas inside elements distinguishable")
    func commaSeparatedStyle() async throws {
        let style = QueryStyle(arrays: .commaSeparated)
        let parameters: [String: Any] = ["ids": [1, 2, 3], "names": ["a,b", "c"]]
        let response = try await HTTPBin.get(parameters: parameters, style: style).response(type: Echo.self).get()
        // httpbin decodes %2C back to a comma, so only the raw query shows the difference.
        #expect(response.value.args == ["ids": "1,2,3", "names": "a,b,c"])
        #expect(response.request.url.query == "ids=1,2,3&names=a%2Cb,c")
    }

    @Test("A query written in the endpoint is kept and merged with the parameters")
    func endpointQueryMerged() async throws {
        let response = try await HTTPBin.raw(endpoint: "get\(query: "x=1&y=a%2Bb&z=c d")", parameters: ["w": "e&f", "v": 2])
            .response(type: Echo.self).get()
        #expect(response.value.args == ["x": "1", "y": "a+b", "z": "c d", "w": "e&f", "v": "2"])
    }

    @Test("A key in both the endpoint query and the parameters is sent twice, endpoint first")
    func endpointQueryDuplicateKey() async throws {
        let response = try await HTTPBin.raw(endpoint: "get\(query: "x=1")", parameters: ["x": "2"]).response(type: Echo.self).get()
        #expect(response.value.args == ["x": ["1", "2"]])
    }

    @Test("Concurrent requests each get their own answer")
    func concurrentRequests() async throws {
        let answers = try await withThrowingTaskGroup(of: (Int, [String: JSON]).self) { group in
            for index in 0..<16 {
                group.addTask {
                    let echo = try await HTTPBin.get(parameters: ["i": index, "s": "value \(index)"])
                        .request(type: Echo.self).get()
                    return (index, echo.args)
                }
            }
            var answers: [Int: [String: JSON]] = [:]
            for try await (index, args) in group { answers[index] = args }
            return answers
        }
        #expect(answers.count == 16)
        for index in 0..<16 {
            #expect(answers[index] == ["i": .string("\(index)"), "s": .string("value \(index)")])
        }
    }
}

// MARK: - Bodies

@Suite(.needsHTTPBin)
struct HTTPBinBodyTests {
    @Test("[String: Any] parameters arrive as the same JSON")
    func jsonParameters() async throws {
        let parameters: [String: Any] = [
            "string": "a+b & ü 🚀 \"quoted\" \\ back\nslash\t",
            "int": 42,
            "negative": -3,
            "double": 3.25,
            "bool": true,
            "null": NSNull(),
            "optional": String?.none as Any,
            "array": [1, "two", false, NSNull()] as [Any],
            "object": ["nested": ["deep": "x"], "empty": [String: Any]()] as [String: Any],
            "emptyArray": [Any](),
        ]
        let response = try await HTTPBin.postJSON(parameters: parameters).response(type: Echo.self).get()
        let expected: JSON = [
            "string": "a+b & ü 🚀 \"quoted\" \\ back\nslash\t",
            "int": 42,
            "negative": -3,
            "double": 3.25,
            "bool": true,
            "null": nil,
            "optional": nil,
            "array": [1, "two", false, nil],
            "object": ["nested": ["deep": "x"], "empty": [:]],
            "emptyArray": [],
        ]
        #expect(response.value.json == expected)
        #expect(response.value.headers["Content-Type"] == "application/json")
        #expect(response.value.args == [:])
        #expect(response.value.form == [:])
    }

    @Test("An Encodable .json body arrives intact; parameters then go to the query")
    func encodableBody() async throws {
        let parcel = Parcel(
            title: "Überraschung 🎁 \"1+1=2\"", count: 3, fragile: true, tags: ["a&b", "c d"],
            note: nil, dimensions: .init(width: 1.5, height: 20))
        let response = try await HTTPBin.postBody(.json(parcel), parameters: ["page": 2, "q": "x+y"])
            .response(type: JSONEcho<Parcel>.self).get()
        #expect(response.value.json == parcel)
        #expect(response.value.args == ["page": "2", "q": "x+y"])
        #expect(response.value.headers["Content-Type"] == "application/json")
    }

    @Test("Form parameters arrive in httpbin's form")
    func formParameters() async throws {
        let parameters: [String: Any] = [
            "plus": "a+b", "amp": "a&b=c", "percent": "100%", "unicode": "ü é 🚀", "spaces": " x  y ",
            "k e+y&": "odd key", "list": ["1", "2+2"], "flag": true, "number": 1.5,
        ]
        let response = try await HTTPBin.postForm(parameters: parameters).response(type: Echo.self).get()
        #expect(
            response.value.form == [
                "plus": "a+b", "amp": "a&b=c", "percent": "100%", "unicode": "ü é 🚀", "spaces": " x  y ",
                "k e+y&": "odd key", "list[]": ["1", "2+2"], "flag": "true", "number": "1.5",
            ])
        #expect(response.value.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(response.value.json == nil)
        #expect(response.value.args == [:])
    }

    @Test("A .form body arrives in httpbin's form")
    func formBody() async throws {
        let response = try await HTTPBin.postBody(.form(["user": "ü@example.com", "password": "p&ss=w+rd %"]))
            .response(type: Echo.self).get()
        #expect(response.value.form == ["user": "ü@example.com", "password": "p&ss=w+rd %"])
        #expect(response.value.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test("A .data body arrives byte for byte")
    func dataBody() async throws {
        let text = "plain text ü 🚀\r\nsecond line"
        let response = try await HTTPBin.postBody(.data(Data(text.utf8), contentType: "text/plain; charset=utf-8"))
            .response(type: Echo.self).get()
        #expect(response.value.data == text)
        #expect(response.value.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test("Multipart fields arrive in form and files in files")
    func multipart() async throws {
        var form = MultipartFormData()
        form.append("Holiday ü 🚀", name: "title")
        form.append("a&b=c+d", name: "note")
        form.append(Data("hello file\nline 2 ü".utf8), name: "upload", fileName: "hello.txt", mimeType: "text/plain")
        form.append(Data(#"{"a":1}"#.utf8), name: "document", fileName: "doc.json")
        let response = try await HTTPBin.postBody(.multipart(form)).response(type: Echo.self).get()
        #expect(response.value.form == ["title": "Holiday ü 🚀", "note": "a&b=c+d"])
        #expect(response.value.files == ["upload": "hello file\nline 2 ü", "document": #"{"a":1}"#])
        #expect(response.value.headers["Content-Type"] == form.contentType)
    }
}

// MARK: - Headers

@Suite(.needsHTTPBin)
struct HTTPBinHeaderTests {
    @Test("Default headers: Accept is JSON and User-Agent names the library")
    func defaults() async throws {
        let headers = try await HTTPBin.headers(nil).request(type: HeadersEcho.self).get().headers
        #expect(headers["Accept"] == "application/json")
        let userAgent = try #require(headers["User-Agent"])
        #expect(userAgent.hasPrefix("EndpointRouter/"), "User-Agent was '\(userAgent)'")
    }

    @Test("A custom header arrives")
    func customHeader() async throws {
        let headers = try await HTTPBin.headers(["X-Custom-Header": "custom value, 123; ok=yes"])
            .request(type: HeadersEcho.self).get().headers
        #expect(headers["X-Custom-Header"] == "custom value, 123; ok=yes")
    }

    @Test("An endpoint header overrides a default whatever its casing")
    func overrideDefaultsCaseInsensitively() async throws {
        let headers = try await HTTPBin.headers(["accept": "text/plain", "USER-AGENT": "MyApp/2.0"])
            .request(type: HeadersEcho.self).get().headers
        #expect(headers["Accept"] == "text/plain")
        #expect(headers["User-Agent"] == "MyApp/2.0")
    }

    @Test("Response headers are read case-insensitively")
    func responseHeaders() async throws {
        let response = try await HTTPBin.responseHeaders(["X-Test-Header": "abc 123", "X-Other": "a+b=c"])
            .response(type: Data.self).get()
        #expect(response.headers["x-test-header"] == "abc 123")
        #expect(response.headers["X-TEST-HEADER"] == "abc 123")
        #expect(response.headers["x-other"] == "a+b=c")
        #expect(response.headers["content-type"] == "application/json")
    }
}

// MARK: - Status codes

@Suite(.needsHTTPBin)
struct HTTPBinStatusTests {
    @Test("200 with an empty body decodes as EmptyResponse")
    func ok() async throws {
        let response = try await HTTPBin.status(200).response(type: EmptyResponse.self).get()
        #expect(response.statusCode == 200)
        #expect(response.value == EmptyResponse())
    }

    @Test("204 No Content decodes as EmptyResponse")
    func noContent() async throws {
        let response = try await HTTPBin.status(204).response(type: EmptyResponse.self).get()
        #expect(response.statusCode == 204)
        #expect(response.data.isEmpty)
    }

    @Test("Errors are .unacceptableStatusCode with that status", arguments: [400, 404, 418, 500, 503])
    func unacceptable(status: Int) async {
        let result = await HTTPBin.status(status).request(type: EmptyResponse.self)
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode(\(status)), got \(result)")
            return
        }
        #expect(response.statusCode == status)
        #expect(response.url?.path == "/status/\(status)")
    }

    @Test("Widened acceptableStatusCodes turn 404 and 500 into success", arguments: [404, 500])
    func widened(status: Int) async throws {
        let response = try await HTTPBin.status(status, acceptable: 200..<600).response(type: Data.self).get()
        #expect(response.statusCode == status)
    }

    @Test("A 418 keeps its body in the error")
    func teapotBody() async {
        let result = await HTTPBin.status(418).request(type: Data.self)
        guard case .failure(let error) = result, let response = error.response else {
            Issue.record("expected an error with a response, got \(result)")
            return
        }
        #expect(response.statusCode == 418)
        #expect(String(decoding: response.data, as: UTF8.self).contains("teapot"))
    }
}

// MARK: - Transport behaviour

@Suite(.needsHTTPBin)
struct HTTPBinTransportTests {
    @Test("gzip bodies are decompressed")
    func gzip() async throws {
        let response = try await HTTPBin.gzip.response(type: GzipEcho.self).get()
        #expect(response.value.gzipped == true)
        #expect(response.value.method == "GET")
    }

    @Test("A sub-second timeout ends a slow request with .timedOut on time")
    func timeout() async {
        let clock = ContinuousClock()
        let start = clock.now
        let result = await HTTPBin.delay(seconds: 3, timeout: 0.5).request(type: Echo.self)
        let elapsed = clock.now - start
        guard case .failure(.timedOut) = result else {
            Issue.record("expected .timedOut, got \(result)")
            return
        }
        #expect(elapsed >= .milliseconds(500), "timed out after \(elapsed)")
        #expect(elapsed < .milliseconds(1500), "timed out after \(elapsed)")
    }

    @Test("A delay within the timeout succeeds")
    func delayWithinTimeout() async throws {
        let response = try await HTTPBin.delay(seconds: 1, timeout: 5).response(type: Echo.self).get()
        #expect(response.statusCode == 200)
        #expect(response.value.url == "\(HTTPBinServer.base)/delay/1")
    }

    @Test("Relative redirects are followed to the end")
    func redirects() async throws {
        let response = try await HTTPBin.redirect(times: 3).response(type: Echo.self).get()
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/get")
        #expect(response.value.url == "\(HTTPBinServer.base)/get")
    }

    @Test("A 307 redirect keeps the POST method and body", arguments: [307, 308])
    func redirectKeepsBody(status: Int) async throws {
        let parcel = Parcel(
            title: "kept", count: 1, fragile: false, tags: ["x"], note: "n",
            dimensions: .init(width: 1, height: 2))
        let response = try await HTTPBin.redirectTo(url: "/anything", statusCode: status, method: .post, body: .json(parcel))
            .response(type: JSONEcho<Parcel>.self).get()
        #expect(response.url?.path == "/anything")
        #expect(response.value.json == parcel)
        #expect(response.value.headers["Content-Type"] == "application/json")
    }

    @Test("A 303 redirect turns a POST into a GET without body")
    func redirect303BecomesGet() async throws {
        let response = try await HTTPBin.redirectTo(
            url: "/anything", statusCode: 303, method: .post,
            body: .json(["dropped": true])
        )
        .response(type: Echo.self).get()
        #expect(response.value.method == "GET")
        #expect(response.value.data == "")
        #expect(response.value.json == nil)
        #expect(response.value.headers["Content-Type"] == nil)
    }

    @Test("Authorization survives a same-origin redirect")
    func sameOriginRedirectKeepsAuthorization() async throws {
        let response = try await HTTPBin.redirectTo(
            url: "/headers", statusCode: 302, method: .get, body: nil,
            headers: ["Authorization": "Bearer secret", "X-Kept": "yes"]
        )
        .response(type: HeadersEcho.self).get()
        #expect(response.value.headers["Authorization"] == "Bearer secret")
        #expect(response.value.headers["X-Kept"] == "yes")
    }

    @Test(
        "Credentials are stripped on a cross-origin redirect",
        .enabled(if: HTTPBinServer.otherOrigin != nil, "needs httpbin reachable under a second origin (127.0.0.1 and localhost)"))
    func crossOriginRedirectStripsCredentials() async throws {
        let other = try #require(HTTPBinServer.otherOrigin)
        let response = try await HTTPBin.redirectTo(
            url: "\(other)/headers", statusCode: 307, method: .get, body: nil,
            headers: [
                "Authorization": "Bearer secret", "Cookie": "s=1",
                "X-Kept": "yes",
            ]
        )
        .response(type: HeadersEcho.self).get()
        #expect(response.url?.host == "localhost")
        #expect(response.value.headers["Authorization"] == nil)
        #expect(response.value.headers["Cookie"] == nil)
        #expect(response.value.headers["X-Kept"] == "yes")
    }

    @Test("More than 10 redirects fail with a transport error")
    func tooManyRedirects() async {
        let result = await HTTPBin.absoluteRedirect(times: 12).request(type: Echo.self)
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected .transport(.httpTooManyRedirects), got \(result)")
            return
        }
        #expect(error.code == .httpTooManyRedirects)
    }

    @Test("10 absolute redirects are still followed")
    func tenRedirects() async throws {
        let response = try await HTTPBin.absoluteRedirect(times: 10).response(type: Echo.self).get()
        #expect(response.url?.path == "/get")
    }

    @Test("Basic auth without credentials answers 401 promptly instead of hanging")
    func basicAuthWithoutCredentials() async {
        let clock = ContinuousClock()
        let start = clock.now
        let result = await HTTPBin.basicAuth(user: "u", password: "p", authorization: nil).request(type: BasicAuthAnswer.self)
        let elapsed = clock.now - start
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode(401), got \(result)")
            return
        }
        #expect(response.statusCode == 401)
        #expect(response.headers["www-authenticate"]?.hasPrefix("Basic") == true)
        #expect(elapsed < .seconds(2), "took \(elapsed)")
    }

    @Test("Basic auth with the right Authorization header answers 200")
    func basicAuthWithCredentials() async throws {
        let token = Data("u:p".utf8).base64EncodedString()
        let answer = try await HTTPBin.basicAuth(user: "u", password: "p", authorization: "Basic \(token)")
            .request(type: BasicAuthAnswer.self).get()
        #expect(answer == BasicAuthAnswer(authenticated: true, user: "u"))
    }

    @Test("Basic auth with a wrong password answers 401")
    func basicAuthWrongPassword() async {
        let token = Data("u:wrong".utf8).base64EncodedString()
        let result = await HTTPBin.basicAuth(user: "u", password: "p", authorization: "Basic \(token)")
            .request(type: BasicAuthAnswer.self)
        guard case .failure(.unacceptableStatusCode(let response)) = result else {
            Issue.record("expected .unacceptableStatusCode(401), got \(result)")
            return
        }
        #expect(response.statusCode == 401)
    }
}

// MARK: - Response bodies

@Suite(.needsHTTPBin)
struct HTTPBinResponseBodyTests {
    @Test("Binary bodies arrive as Data of the right length, reproducibly")
    func bytes() async throws {
        let first = try await HTTPBin.bytes(count: 4096, seed: 42).response(type: Data.self).get()
        let second = try await HTTPBin.bytes(count: 4096, seed: 42).request(type: Data.self).get()
        #expect(first.value.count == 4096)
        #expect(first.value == second)
        #expect(first.value == first.data)
        #expect(first.headers["Content-Type"] == "application/octet-stream")
    }

    @Test("UTF-8 text arrives as String")
    func utf8Text() async throws {
        let text = try await HTTPBin.encodingUTF8.request(type: String.self).get()
        #expect(text.hasPrefix("<h1>Unicode Demo</h1>"))
        #expect(text.contains("Markus Kuhn [ˈmaʳkʊs kuːn]"))
        #expect(text.contains("∮ E⋅da = Q"))
    }

    @Test("/json decodes into a Decodable")
    func json() async throws {
        let document = try await HTTPBin.json.request(type: SlideshowDocument.self).get()
        #expect(document.slideshow.title == "Sample Slide Show")
        #expect(document.slideshow.author == "Yours Truly")
        #expect(
            document.slideshow.slides == [
                .init(title: "Wake up to WonderWidgets!", type: "all", items: nil),
                .init(
                    title: "Overview", type: "all",
                    items: ["Why <em>WonderWidgets</em> are great", "Who <em>buys</em> WonderWidgets"]),
            ])
    }

    @Test("HTML requested as a Decodable is .decodingFailed with the response")
    func htmlIsNotJSON() async {
        let result = await HTTPBin.html.request(type: SlideshowDocument.self)
        guard case .failure(.decodingFailed(let response, let reason)) = result else {
            Issue.record("expected .decodingFailed, got \(result)")
            return
        }
        #expect(response.statusCode == 200)
        #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(String(decoding: response.data, as: UTF8.self).contains("<html>"))
        #expect(!reason.isEmpty)
    }
}
