// Values the StubResponse list refers to (after `models`).
import EndpointRouterTesting

let fixtures = URL(fileURLWithPath: "Fixtures")
let png = Data([0x89, 0x50, 0x4E, 0x47])
let todos = [Todo(userId: 1, id: 1, title: "a", completed: false)]
