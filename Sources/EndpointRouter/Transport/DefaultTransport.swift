/// The transport every endpoint uses unless it names another (``HTTPClient/transport``).
///
/// On Linux it is a ``CurlTransport``, which drives libcurl directly; where libcurl cannot be loaded
/// (a statically linked binary, a libcurl older than 7.68) it is ``URLSessionTransport/shared``, and
/// ``fallbackReason`` says why. On Apple platforms it is always ``URLSessionTransport/shared``.
///
/// ```swift
/// if let reason = DefaultTransport.fallbackReason { print("HTTP on URLSession: \(reason)") }
/// ```
public enum DefaultTransport {
    /// The transport itself, made the first time it is read.
    public static var shared: any HTTPTransport { choice.transport }

    /// Why the default on Linux is not ``CurlTransport``; `nil` when it is, and on Apple platforms.
    public static var fallbackReason: String? {
        #if os(Linux)
            choice.fallbackReason
        #else
            nil
        #endif
    }

    private static let choice = choose(CurlTransport.availability)

    /// The default for a machine where libcurl is as `availability` says, and why it fell back if it
    /// did; the tests force the fallback through it.
    static func choose(_ availability: CurlTransport.Availability) -> (transport: any HTTPTransport, fallbackReason: String?) {
        #if os(Linux)
            switch availability {
            case .unavailable(let reason): return (URLSessionTransport.shared, reason)
            case .available:
                do {
                    return (try CurlTransport(), nil)
                } catch {
                    return (URLSessionTransport.shared, error.localizedDescription)
                }
            }
        #else
            return (URLSessionTransport.shared, nil)
        #endif
    }
}
