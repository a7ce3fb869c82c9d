import Foundation

@testable import EndpointRouter

/// An endpoint with stored properties including ``HTTPClient/options``, for the built-in middlewares.
struct OptionedEndpoint: HTTPClient {
    var host: String
    var endpoint = "items"
    var method: RequestMethod = .get
    var body: EndpointBody?
    var timeout: TimeInterval? = 10
    var transport: any HTTPTransport = DefaultTransport.shared
    var middlewares: [any HTTPMiddleware] = []
    var options = EndpointOptions()
}

/// A ``RetryMiddleware`` sleeper that records the waits asked for and returns at once.
final class RecordedWaits: Sendable {
    private let waits = Locked<[Duration]>([])

    var all: [Duration] { waits.withLock { $0 } }

    var sleep: RetryMiddleware.Sleep {
        { [waits] duration throws(HTTPClientError) in
            waits.withLock { $0.append(duration) }
        }
    }
}

/// A thread-safe counter for closures that run concurrently.
final class Counter: Sendable {
    private let value = Locked(0)

    var count: Int { value.withLock { $0 } }

    @discardableResult
    func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}

/// Waits until `condition` holds, polling every 5 ms for at most `seconds`; returns whether it held.
func eventually(within seconds: Double = 5, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
