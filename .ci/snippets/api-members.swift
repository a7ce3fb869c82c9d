// For blocks that show members of a service enum (`var body: EndpointBody? { ... }`): the block is put
// inside `enum API`. `host` and `endpoint` have defaults here, so a block may declare them or not.
protocol ExampleService: HTTPClient {}

extension ExampleService {
    var host: String { "https://api.example.com" }
    var endpoint: String { "todos" }
}

enum API: ExampleService {
    case todos
    case create(Todo)
    case login(user: String, password: String)
    case avatar(Data)
    case upload(photo: Data)

    // @snippet
}
