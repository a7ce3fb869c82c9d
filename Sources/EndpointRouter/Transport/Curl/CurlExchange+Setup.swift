#if os(Linux)
    internal import CLibcurl
    import Foundation

    /// Setting an exchange's easy handle up for its request: the options, the method and body, the
    /// header lines, and the transport's configuration.
    extension CurlExchange {
        /// libcurl's own timeout for a call with `remaining` time left: a backstop a second after the
        /// library's deadline, which governs (it cancels the call and answers `.timedOut` on the
        /// caller's clock). Rounded up to the millisecond: truncated, `0.9995 s` left made it
        /// `1,000 ms`, and libcurl — on another clock, checking in whole milliseconds — ended a
        /// 1-second call 0.5 ms before its deadline (seen in CI). `nil` when the call has no
        /// deadline worth giving libcurl (a day or more).
        static func backstopMilliseconds(remaining: Duration) -> Int? {
            guard remaining > .zero else { return 1000 }
            let (seconds, attoseconds) = remaining.components
            guard seconds < 86_400 else { return nil }
            let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
            let fraction = (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
            return Int(seconds) * 1000 + Int(fraction) + 1000
        }

        /// Sets libcurl's backstop again from the time left now, for a transfer the loop's admission
        /// held and now starts: libcurl counts its timeout from when the transfer goes on the multi,
        /// so the one set in ``setUp()`` would end the call late by the time held. Only held transfers
        /// come here; one admitted at once keeps the value ``setUp()`` gave it.
        func restartBackstop() {
            guard let easy, let backstop = Self.backstopMilliseconds(remaining: context.remainingTime) else { return }
            _ = libcurl_easy_setopt_long(easy, CurlOption.timeoutMilliseconds, backstop)
        }

        /// The upload buffer to ask libcurl for, in bytes: its smallest, 16 KB, for a request with no
        /// body or one of at most 64 KB; `nil` (libcurl's default, 64 KB) for a larger body or one of
        /// unknown length, which then moves in fewer, larger reads.
        ///
        /// libcurl allocates its upload buffer for every transfer, one without a body too, and frees
        /// it when the transfer ends. Over TLS (OpenSSL's buffers come and go with each request as
        /// well) the 64 KB churn made glibc hand the loop thread's heap back to the kernel about once
        /// every five calls at 64 in flight, then fault it in again: `madvise` 0.21 and page faults
        /// 0.69 a request, against 0 and 0.05 with 16 KB (`perf stat` on `Benchmarks/load`'s
        /// conc64-small over TLS, issue 41).
        static func uploadBufferSize(hasBody: Bool, length: Int64?) -> Int? {
            let smallest = 16 * 1024
            guard hasBody else { return smallest }
            guard let length, length <= 64 * 1024 else { return nil }
            return smallest
        }

        /// Makes the easy handle for the request; returns why it cannot be made, if it cannot.
        func setUp() -> HTTPClientError? {
            guard let easy = loop.handle() else {
                return .transport(.resourceUnavailable, "libcurl could not make a transfer handle (out of memory)", url: request.url)
            }
            self.easy = easy
            guard headerList != nil else {
                return .transport(.resourceUnavailable, "there was no memory for the request's header list", url: request.url)
            }
            let me = Unmanaged.passUnretained(self).toOpaque()
            var ok = true
            func set(_ option: Int32, _ value: Int) { ok = ok && libcurl_easy_setopt_long(easy, option, value) == 0 }
            func set(_ option: Int32, _ text: String) {
                // libcurl copies string options (since 7.17).
                ok = ok && text.withCString { libcurl_easy_setopt_pointer(easy, option, $0) } == 0
            }
            set(CurlOption.url, request.url.absoluteString)
            set(CurlOption.noSignal, 1)
            set(CurlOption.followLocation, 0)
            set(CurlOption.pathAsIs, 1)
            // Only http and https, whoever made the URL: libcurl speaks gopher, dict, file and more.
            if "http,https".withCString({ libcurl_easy_setopt_pointer(easy, CurlOption.protocolsText, $0) }) != 0 {
                set(CurlOption.protocols, CurlProtocol.http | CurlProtocol.https)
            }
            ok = ok && libcurl_easy_setopt_pointer(easy, CurlOption.errorBuffer, errorText) == 0
            ok = ok && libcurl_easy_setopt_pointer(easy, CurlOption.writeData, me) == 0
            ok = ok && libcurl_easy_setopt_data_callback(easy, CurlOption.writeFunction, curlWrite) == 0
            ok = ok && libcurl_easy_setopt_pointer(easy, CurlOption.headerData, me) == 0
            ok = ok && libcurl_easy_setopt_data_callback(easy, CurlOption.headerFunction, curlHeader) == 0
            // The body arrives as sent and the exchange decodes it (CurlBodyDecoding): libcurl's own
            // decoding goes on while a transfer is paused, holding what it decoded.
            set(CurlOption.httpContentDecoding, 0)
            if options.decompresses, let codings = CurlBodyDecoding.acceptEncoding { set(CurlOption.acceptEncoding, codings) }
            if let backstop = Self.backstopMilliseconds(remaining: context.remainingTime) {
                set(CurlOption.timeoutMilliseconds, backstop)
            }
            if let size = Self.uploadBufferSize(hasBody: request.body != nil, length: uploadLength) {
                // Not checked: a libcurl before 7.62 refuses the option and keeps its default.
                _ = libcurl_easy_setopt_long(easy, CurlOption.uploadBufferSize, size)
            }
            ok = ok && setMethodAndBody(easy, me)
            ok = ok && setHeaders(easy)
            guard ok else {
                let reason = "libcurl \(libcurlVersion) refused to set this request up (its URL, method, body or headers)"
                return .transport(.unknown, reason, url: request.url)
            }
            switch options.apply(to: easy, scheme: request.url.scheme, isReadable: loop.isReadable) {
            case nil:
                break
            case .nul(let setting):
                // The value itself stays out of the message: a proxy setting may hold a password.
                let reason = "the CurlTransport's `\(setting)` setting has a NUL character in it, which libcurl would read cut short"
                return .transport(.unknown, reason, url: request.url)
            case .libcurl(let setting):
                let reason =
                    "libcurl \(libcurlVersion) refused the transport's `\(setting)` setting: an option this build lacks, or a value it rejects"
                return .transport(.unknown, reason, url: request.url)
            case .unreadableFile(let setting, let path, let exists):
                let why = exists ? "cannot be read by this process (is it a folder? check its permissions)" : "does not exist"
                let reason = "the file \(path) named by the CurlTransport's `\(setting)` setting \(why); nothing was sent"
                return .transport(exists ? .noPermissionsToReadFile : .fileDoesNotExist, reason, url: request.url)
            case .unusableProxy(let problem):
                let reason =
                    "the CurlTransport's `proxy` setting (or the environment's proxy) cannot be used: \(problem); "
                    + "write it as http://host:port, with user:password@ before the host if the proxy needs them; nothing was sent"
                return .transport(.badURL, reason, url: request.url)
            }
            return nil
        }

        private var libcurlVersion: String { String(cString: libcurl_version()) }

        private func setMethodAndBody(_ easy: UnsafeMutableRawPointer, _ me: UnsafeMutableRawPointer) -> Bool {
            var ok = true
            let method = request.method
            if method == .head {
                ok = libcurl_easy_setopt_long(easy, CurlOption.noBody, 1) == 0
            } else if method != .get || request.body != nil {
                ok = method.rawValue.withCString { libcurl_easy_setopt_pointer(easy, CurlOption.customRequest, $0) } == 0
            }
            if !method.isIdempotent && (uploadLength ?? 0) == 0 {
                // libcurl sends a request again on its own when a reused connection dies before the
                // answer, unless it would have to rewind a body it has read (it cannot: there is no
                // seek callback). With no body, an empty one, or one of unknown length that may read
                // as empty, nothing stops it; a connection of its own is never reused.
                ok = ok && libcurl_easy_setopt_long(easy, CurlOption.freshConnect, 1) == 0
            }
            guard request.body != nil || method == .post else { return ok }
            // POST framing for every body: Content-Length when the size is known, chunked only when
            // it is not. The body comes from the read callback and there is no seek callback, so
            // libcurl can never rewind it to send the request a second time by itself.
            ok = ok && libcurl_easy_setopt_long(easy, CurlOption.post, 1) == 0
            ok = ok && libcurl_easy_setopt_offset(easy, CurlOption.postFieldSizeLarge, request.body == nil ? 0 : uploadLength ?? -1) == 0
            ok = ok && libcurl_easy_setopt_pointer(easy, CurlOption.readData, me) == 0
            ok = ok && libcurl_easy_setopt_data_callback(easy, CurlOption.readFunction, curlRead) == 0
            if context.uploadProgress != nil {
                ok = ok && libcurl_easy_setopt_pointer(easy, CurlOption.xferInfoData, me) == 0
                ok = ok && libcurl_easy_setopt_progress_callback(easy, CurlOption.xferInfoFunction, curlProgress) == 0
                ok = ok && libcurl_easy_setopt_long(easy, CurlOption.noProgress, 0) == 0
            }
            return ok
        }

        private func setHeaders(_ easy: UnsafeMutableRawPointer) -> Bool {
            guard let headerList else { return false }
            return libcurl_easy_setopt_pointer(easy, CurlOption.httpHeader, headerList) == 0
        }

        /// The header lines of `request` as libcurl takes them, each ended by a NUL, in one block.
        /// Never empty: `Expect:` is always there unless the request set `Expect` itself.
        static func headerList(for request: OutgoingRequest) -> UnsafeMutableRawPointer? {
            var hasContentType = false
            var hasExpect = false
            var lines: [UInt8] = []
            lines.reserveCapacity(256)
            for field in request.headers.fields {
                hasContentType = hasContentType || field.name.caseInsensitiveEquals("Content-Type")
                hasExpect = hasExpect || field.name.caseInsensitiveEquals("Expect")
                lines.append(contentsOf: field.name.utf8)
                // "Name;" is libcurl's way to send a field with an empty value ("Name:" removes it).
                if field.value.isEmpty {
                    lines.append(UInt8(ascii: ";"))
                } else {
                    lines.append(contentsOf: ": ".utf8)
                    lines.append(contentsOf: field.value.utf8)
                }
                lines.append(0)
            }
            // libcurl would add these by itself: a form Content-Type the caller never chose, and an
            // `Expect: 100-continue` wait before large bodies.
            if request.body != nil || request.method == .post, !hasContentType { lines.append(contentsOf: "Content-Type:\u{0}".utf8) }
            if !hasExpect { lines.append(contentsOf: "Expect:\u{0}".utf8) }
            // RequestChecks refused any NUL in a name or a value before the exchange was made.
            return lines.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { libcurl_list_make($0.baseAddress, $0.count) }
            }
        }
    }
#endif
