import CRawCurl
import Foundation

/// A diagnostic beside the baseline (issue 23), not a baseline of its own: ``RawLibcurl``
/// rewritten to keep the rules issue 23 and issue "never send a POST twice" set for the transport,
/// and nothing else of the library. Counted by `Benchmarks/instructions curl` (side `rules`), so
/// that the gap between the library and the raw loop splits into what the rules cost a hand-written
/// loop and what the library adds on top of them.
///
/// The rules, and what each changes against ``RawLibcurl``:
/// - **One thread calls libcurl.** The caller hands over a description of its request; the loop
///   thread sets the easy handle up (taken from its own reset handles, as the transport does) and
///   makes the header list.
/// - **A POST is never sent twice by libcurl.** The body comes from a read callback with no seek
///   callback, instead of `CURLOPT_COPYPOSTFIELDS`.
/// - **Response headers are reported.** A header callback splits each line into a name and a value.
/// - **Decompression** of what libcurl offers: `CURLOPT_ACCEPT_ENCODING` "".
///
/// Still left out, as in ``RawLibcurl``: deadline, cancellation, back-pressure, limits.
public final class RawLibcurlUnderRules: @unchecked Sendable {
    /// The process's loop; `nil` when libcurl.so.4 cannot be opened.
    public static let shared: RawLibcurlUnderRules? = rawcurl_open() == 0 ? RawLibcurlUnderRules() : nil

    /// One transfer, retained by libcurl's `CURLOPT_PRIVATE` until it ends. Made on the caller's
    /// thread; touched by the loop thread only after it is handed over.
    final class Transfer {
        let url: String
        let headerLines: [String]
        let postBody: Data?
        var sent = 0
        var headers: [(name: String, value: String)] = []
        var body = Data()
        var easy: UnsafeMutableRawPointer?
        var list: UnsafeMutableRawPointer?
        var continuation: CheckedContinuation<(Int, Data), any Error>?

        init(url: String, headerLines: [String], postBody: Data?) {
            self.url = url
            self.headerLines = headerLines
            self.postBody = postBody
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    /// Transfers handed over and not yet set up; under `lock`.
    private var handedOver: [Transfer] = []
    /// Reset easy handles for the next transfers; the loop thread's alone.
    private var spare: [UnsafeMutableRawPointer] = []

    private init?() {
        guard let multi = rawcurl_multi_init() else { return nil }
        self.multi = multi
        _ = rawcurl_multi_set_long(multi, RAWCURL_MOPT_MAX_HOST_CONNECTIONS, 6)
        let thread = Thread { [self] in run() }
        thread.name = "RawLibcurlUnderRules"
        thread.start()
    }

    /// Performs one request and returns its status and collected body.
    public func perform(url: String, postBody: Data? = nil, headers: [String] = []) async throws -> (status: Int, body: Data) {
        let transfer = Transfer(url: url, headerLines: headers, postBody: postBody)
        let (status, body) = try await withCheckedThrowingContinuation { continuation in
            transfer.continuation = continuation
            lock.lock()
            handedOver.append(transfer)
            lock.unlock()
            _ = rawcurl_multi_wakeup(multi)
        }
        return (status, body)
    }

    /// On the loop thread: the easy handle for `transfer`, set up; `false` when libcurl refused.
    private func setUp(_ transfer: Transfer) -> Bool {
        guard let easy = spare.popLast() ?? rawcurl_easy_init() else { return false }
        transfer.easy = easy
        let user = Unmanaged.passRetained(transfer).toOpaque()
        var ok = rawcurl_set_pointer(easy, RAWCURL_OPT_URL, transfer.url) == 0
        ok = ok && rawcurl_set_long(easy, RAWCURL_OPT_NOSIGNAL, 1) == 0
        ok = ok && rawcurl_set_pointer(easy, RAWCURL_OPT_PRIVATE, user) == 0
        ok = ok && rawcurl_set_pointer(easy, RAWCURL_OPT_WRITEDATA, user) == 0
        ok = ok && rawcurl_set_write(easy, rulesWrite) == 0
        ok = ok && rawcurl_set_pointer(easy, RAWCURL_OPT_HEADERDATA, user) == 0
        ok = ok && rawcurl_set_header(easy, rulesHeader) == 0
        ok = ok && rawcurl_set_pointer(easy, RAWCURL_OPT_ACCEPT_ENCODING, "") == 0
        for line in transfer.headerLines { transfer.list = rawcurl_list_append(transfer.list, line) }
        if let list = transfer.list { ok = ok && rawcurl_set_pointer(easy, RAWCURL_OPT_HTTPHEADER, list) == 0 }
        if let body = transfer.postBody {
            ok = ok && rawcurl_set_long(easy, RAWCURL_OPT_POST, 1) == 0
            ok = ok && rawcurl_set_long(easy, RAWCURL_OPT_POSTFIELDSIZE, body.count) == 0
            ok = ok && rawcurl_set_pointer(easy, RAWCURL_OPT_READDATA, user) == 0
            ok = ok && rawcurl_set_read(easy, rulesRead) == 0
        }
        return ok && rawcurl_multi_add(multi, easy) == 0
    }

    private func run() {
        var running: Int32 = 0
        while true {
            lock.lock()
            let added = handedOver
            handedOver.removeAll(keepingCapacity: true)
            lock.unlock()
            for transfer in added where !setUp(transfer) {
                finish(transfer, status: 0, code: -1)
            }
            _ = rawcurl_multi_perform(multi, &running)
            var code: Int32 = 0
            while let easy = rawcurl_multi_finished(multi, &code) {
                guard let user = rawcurl_private(easy) else { continue }
                let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
                let status = rawcurl_status(easy)
                _ = rawcurl_multi_remove(multi, easy)
                finish(transfer, status: status, code: code)
            }
            _ = rawcurl_multi_poll(multi, 1000)
        }
    }

    /// On the loop thread: the handle reset for the next transfer, the caller resumed.
    private func finish(_ transfer: Transfer, status: Int, code: Int32) {
        if let easy = transfer.easy {
            rawcurl_easy_reset(easy)
            spare.append(easy)
            Unmanaged.passUnretained(transfer).release()
        }
        if let list = transfer.list { rawcurl_list_free(list) }
        let continuation = transfer.continuation
        transfer.continuation = nil
        if code == 0 {
            continuation?.resume(returning: (status, transfer.body))
        } else {
            continuation?.resume(throwing: URLError(.networkConnectionLost, userInfo: ["CURLcode": code]))
        }
    }
}

private func transfer(_ user: UnsafeMutableRawPointer?) -> RawLibcurlUnderRules.Transfer? {
    user.map { Unmanaged<RawLibcurlUnderRules.Transfer>.fromOpaque($0).takeUnretainedValue() }
}

private let rulesWrite: rawcurl_write = { bytes, size, count, user in
    guard let transfer = transfer(user) else { return 0 }
    transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: size * count))
    return size * count
}

/// A line of the head: the status line and the blank line are skipped, any other line becomes a
/// name and a value with the spaces around the value trimmed.
private let rulesHeader: rawcurl_write = { bytes, size, count, user in
    guard let transfer = transfer(user), let bytes else { return 0 }
    let line = UnsafeRawBufferPointer(start: bytes, count: size * count)
    if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        var start = colon + 1
        var end = line.count
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        transfer.headers.append((name, value))
    }
    return size * count
}

private let rulesRead: rawcurl_write = { buffer, size, count, user in
    guard let transfer = transfer(user), let buffer, let body = transfer.postBody else { return 0 }
    let length = min(size * count, body.count - transfer.sent)
    guard length > 0 else { return 0 }
    body.withUnsafeBytes { bytes in
        guard let start = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(buffer).copyMemory(from: start + transfer.sent, byteCount: length)
    }
    transfer.sent += length
    return length
}
