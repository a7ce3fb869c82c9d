import CRawCurl
import Foundation

/// The raw libcurl baseline (issue 23): what a careful person writes over libcurl's multi interface
/// without the library. One thread runs `curl_multi_perform` / `curl_multi_poll`; a caller makes its
/// easy handle on its own thread, hands it over under a lock and wakes the loop with
/// `curl_multi_wakeup`; the body arrives in a write callback on the loop thread, and the caller is
/// resumed with the status when libcurl reports the transfer done.
///
/// It does less than the library's `CurlTransport` on purpose: no response head parsed (the status
/// comes from `CURLINFO_RESPONSE_CODE`), no deadline, no cancellation, no back-pressure, no limits,
/// no decompression asked for. Connections per host are capped at 6, the library's default (and
/// URLSession's), so that 64 calls in flight share the same number of connections on every side.
public final class RawLibcurl: @unchecked Sendable {
    /// The process's loop; `nil` when libcurl.so.4 cannot be opened.
    public static let shared: RawLibcurl? = rawcurl_open() == 0 ? RawLibcurl(events: false) : nil
    /// The same loop driven by libcurl's event API (`curl_multi_socket_action` over epoll, issue 41's
    /// experiment): libcurl acts only on the sockets that are ready.
    public static let events: RawLibcurl? = rawcurl_open() == 0 ? RawLibcurl(events: true) : nil

    /// One transfer, retained by libcurl's `CURLOPT_PRIVATE` / `CURLOPT_WRITEDATA` until it ends.
    final class Transfer {
        let easy: UnsafeMutableRawPointer
        let headers: UnsafeMutableRawPointer?
        let receive: ((UnsafeRawBufferPointer) -> Void)?
        var body = Data()
        var continuation: CheckedContinuation<(Int, Data), any Error>?

        init(easy: UnsafeMutableRawPointer, headers: UnsafeMutableRawPointer?, receive: ((UnsafeRawBufferPointer) -> Void)?) {
            self.easy = easy
            self.headers = headers
            self.receive = receive
        }
    }

    private let multi: UnsafeMutableRawPointer
    /// The event loop's state (`rawcurl_events_init`), or `nil` for the `curl_multi_poll` loop.
    private let events: UnsafeMutableRawPointer?
    private let lock = NSLock()
    /// Transfers handed over and not yet added to the multi handle; under `lock`.
    private var handedOver: [Transfer] = []

    private init?(events: Bool) {
        guard let multi = rawcurl_multi_init() else { return nil }
        self.multi = multi
        if events {
            guard let state = rawcurl_events_init(multi) else {
                rawcurl_multi_cleanup(multi)
                return nil
            }
            self.events = state
        } else {
            self.events = nil
        }
        _ = rawcurl_multi_set_long(multi, RAWCURL_MOPT_MAX_HOST_CONNECTIONS, 6)
        let thread = Thread { [self] in run() }
        thread.name = "RawLibcurl"
        thread.start()
    }

    /// Performs one request; `receive` (if given) gets the body's pieces on the loop thread,
    /// otherwise the body is collected and returned with the status.
    public func perform(
        url: String, postBody: Data? = nil, headers: [String] = [], receive: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) async throws -> (status: Int, body: Data) {
        guard let easy = rawcurl_easy_init() else { throw URLError(.cannotLoadFromNetwork) }
        var list: UnsafeMutableRawPointer?
        for line in headers { list = rawcurl_list_append(list, line) }
        let transfer = Transfer(easy: easy, headers: list, receive: receive)
        let user = Unmanaged.passRetained(transfer).toOpaque()
        _ = rawcurl_set_pointer(easy, RAWCURL_OPT_URL, url)
        _ = rawcurl_set_long(easy, RAWCURL_OPT_NOSIGNAL, 1)
        if let benchmarkCAFile { _ = rawcurl_set_pointer(easy, RAWCURL_OPT_CAINFO, benchmarkCAFile) }
        _ = rawcurl_set_pointer(easy, RAWCURL_OPT_PRIVATE, user)
        _ = rawcurl_set_pointer(easy, RAWCURL_OPT_WRITEDATA, user)
        _ = rawcurl_set_write(easy, rawLibcurlWrite)
        if let list { _ = rawcurl_set_pointer(easy, RAWCURL_OPT_HTTPHEADER, list) }
        if let postBody {
            // A POST with a copied body: libcurl sends it with Content-Length.
            _ = rawcurl_set_long(easy, RAWCURL_OPT_POSTFIELDSIZE, postBody.count)
            _ = postBody.withUnsafeBytes { rawcurl_set_pointer(easy, RAWCURL_OPT_COPYPOSTFIELDS, $0.baseAddress) }
        }
        let (status, body) = try await withCheckedThrowingContinuation { continuation in
            transfer.continuation = continuation
            lock.lock()
            handedOver.append(transfer)
            lock.unlock()
            if let events { rawcurl_events_wake(events) } else { _ = rawcurl_multi_wakeup(multi) }
        }
        return (status, body)
    }

    private func run() {
        var running: Int32 = 0
        while true {
            lock.lock()
            let added = handedOver
            handedOver.removeAll(keepingCapacity: true)
            lock.unlock()
            for transfer in added { _ = rawcurl_multi_add(multi, transfer.easy) }
            if let events {
                rawcurl_events_run(events, 1000)
            } else {
                _ = rawcurl_multi_perform(multi, &running)
            }
            var code: Int32 = 0
            while let easy = rawcurl_multi_finished(multi, &code) {
                guard let user = rawcurl_private(easy) else { continue }
                let transfer = Unmanaged<Transfer>.fromOpaque(user).takeRetainedValue()
                let status = rawcurl_status(easy)
                _ = rawcurl_multi_remove(multi, easy)
                rawcurl_easy_cleanup(easy)
                if let headers = transfer.headers { rawcurl_list_free(headers) }
                let continuation = transfer.continuation
                transfer.continuation = nil
                if code == 0 {
                    continuation?.resume(returning: (status, transfer.body))
                } else {
                    continuation?.resume(throwing: URLError(.networkConnectionLost, userInfo: ["CURLcode": code]))
                }
            }
            if events == nil { _ = rawcurl_multi_poll(multi, 1000) }
        }
    }
}

private let rawLibcurlWrite: rawcurl_write = { bytes, size, count, user in
    guard let user else { return 0 }
    let transfer = Unmanaged<RawLibcurl.Transfer>.fromOpaque(user).takeUnretainedValue()
    let piece = UnsafeRawBufferPointer(start: bytes, count: size * count)
    if let receive = transfer.receive {
        receive(piece)
    } else {
        transfer.body.append(contentsOf: piece)
    }
    return size * count
}

/// The raw libcurl baseline of the end-to-end benchmarks: ``RawLibcurl`` and one shared
/// `JSONDecoder`, the same work per call as ``RawURLSession``; on ``RawCurlLoop/underRules`` or
/// ``RawCurlLoop/events``, the same calls on another loop (diagnostics).
public enum RawCurlCalls {
    static let decoder = JSONDecoder()
    static let encoder = JSONEncoder()

    static func perform(_ url: String, postBody: Data? = nil, headers: [String] = [], on loop: RawCurlLoop) async throws -> (
        status: Int, body: Data
    ) {
        switch loop {
        case .poll:
            guard let loop = RawLibcurl.shared else { throw URLError(.cannotLoadFromNetwork) }
            return try await loop.perform(url: url, postBody: postBody, headers: headers)
        case .events:
            guard let loop = RawLibcurl.events else { throw URLError(.cannotLoadFromNetwork) }
            return try await loop.perform(url: url, postBody: postBody, headers: headers)
        case .underRules:
            guard let loop = RawLibcurlUnderRules.shared else { throw URLError(.cannotLoadFromNetwork) }
            return try await loop.perform(url: url, postBody: postBody, headers: headers)
        }
    }

    /// GETs `endpoint`'s path and decodes `T`.
    public static func get<T: Decodable>(_ endpoint: NginxAPI, as type: T.Type, on loop: RawCurlLoop = .poll) async throws -> T {
        let (status, body) = try await perform("\(benchmarkBaseURL)/\(NginxAPI.paths[endpoint])", on: loop)
        guard status == 200 else { throw URLError(.badServerResponse) }
        return try decoder.decode(T.self, from: body)
    }

    /// POSTs the 60-byte JSON body to `/todos` and decodes the created ``Todo``.
    public static func create(on loop: RawCurlLoop = .poll) async throws -> Todo {
        let (status, body) = try await perform(
            "\(benchmarkBaseURL)/todos", postBody: try encoder.encode(NewTodo()), headers: ["Content-Type: application/json"],
            on: loop)
        guard status == 201 else { throw URLError(.badServerResponse) }
        return try decoder.decode(Todo.self, from: body)
    }
}

/// Which raw libcurl loop ``RawCurlCalls`` uses.
public enum RawCurlLoop: Sendable {
    /// ``RawLibcurl/shared``: `curl_multi_perform` and `curl_multi_poll`, the baseline.
    case poll
    /// ``RawLibcurl/events``: libcurl's event API over epoll (issue 41, eighth pass).
    case events
    /// ``RawLibcurlUnderRules``: the baseline rewritten to keep the transport's rules.
    case underRules
}
