#if os(Linux)
    internal import CLibcurl
    import Foundation

    /// One exchange on libcurl: the easy handle, its callbacks, and the shell that performs what
    /// ``CurlExchangeState`` decides.
    ///
    /// Everything here except `init` runs on the transport's loop thread (``CurlLoop``), which alone
    /// calls libcurl; that confinement is what makes the unchecked `Sendable` safe.
    final class CurlExchange: CuttableExchange, @unchecked Sendable {
        typealias Outcome = Result<ResponseHead, HTTPClientError>
        /// Unsafe rather than checked: ``CurlExchangeState`` answers the caller exactly once by
        /// construction (its table tests say so), and the checked one costs an allocation per exchange.
        typealias Continuation = UnsafeContinuation<Outcome, Never>

        /// A request body as libcurl's read callback takes it.
        private enum Upload {
            case none
            case data(Data, offset: Int)
            case file(URL, FileHandle?)
        }

        let request: OutgoingRequest
        private let context: CallContext
        private let sink: any ResponseBodySink
        /// The sink, when it is a stream's: it can tell at once, on the loop thread, whether it has
        /// room for the next piece, so that a stream with room costs no task, no loop wake-up and no
        /// pause per piece; only a full one is asked ``ResponseBodySink/waitForDemand()`` in a task.
        private let streamSink: StreamBodySink?
        private let options: CurlTransport.Configuration
        private let loop: CurlLoop
        private var machine: CurlExchangeState<Continuation>
        private(set) var easy: UnsafeMutableRawPointer?
        /// The request's header lines for `CURLOPT_HTTPHEADER`, made on the caller's thread (it calls
        /// nothing of libcurl) to spare the loop thread; `nil` only when there was no memory for it.
        private let headerList: UnsafeMutableRawPointer?
        /// libcurl's detail on a failure (`CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE` bytes).
        private let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        private var upload = Upload.none
        private let uploadLength: Int64?
        /// The response being read: libcurl hands its head over line by line.
        private var status: Int?
        private var fields: [HeaderFields.Field] = []
        private var receivedBytes: Int64 = 0
        /// The loop's round in which ``roundBytes`` were taken (see ``CurlLoop/roundBudget``).
        private var round = 0
        private var roundBytes = 0
        /// The body's decoding, made at the head when it has a `Content-Encoding` to decode.
        private var decoding: CurlBodyDecoding?

        init(
            _ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink, options: CurlTransport.Configuration,
            loop: CurlLoop
        ) {
            self.request = request
            self.context = context
            self.sink = sink
            // The sink's kind is read from its type: casts to a protocol (`as? any P`) cost about
            // 2,300 instructions each here (callgrind), two per exchange. A sink of another type (a
            // wrapper) is asked for demand after every piece, which is always correct.
            let kind = ObjectIdentifier(type(of: sink))
            streamSink = kind == ObjectIdentifier(StreamBodySink.self) ? sink as? StreamBodySink : nil
            self.options = options
            self.loop = loop
            // Sinks that take a whole body never make a transport wait: no demand is asked of them.
            let takesWholeBody = kind == ObjectIdentifier(MemoryBodySink.self) || kind == ObjectIdentifier(FileBodySink.self)
            machine = CurlExchangeState(sinkWaits: !takesWholeBody)
            errorText.initialize(to: 0)
            headerList = Self.headerList(for: request)
            switch request.body {
            case .none:
                uploadLength = nil
            case .data(let data):
                upload = .data(data, offset: 0)
                uploadLength = Int64(data.count)
            case .file(let url):
                upload = .file(url, nil)
                // A size of 0 is no promise of an empty file: `/proc` files and FIFOs say 0 and hold
                // bytes. Sent chunked, the body is what reading the file gives.
                let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
                uploadLength = size.map(\.int64Value).flatMap { $0 > 0 ? $0 : nil }
            }
        }

        deinit {
            errorText.deallocate()
            // The handle let go of the list when it was reset or freed, in `release()`.
            libcurl_list_free(headerList)
        }

        // MARK: Events, each run on the loop thread

        /// Ends the exchange with `error` (its call's deadline passed), from any thread.
        func cut(_ error: HTTPClientError) { loop.post(.cancel(self, error)) }

        func start(_ continuation: Continuation) { perform(machine.start(continuation)) }
        func cancel(_ error: HTTPClientError) { perform(machine.cancel(error)) }
        func demand() {
            // What the decoders hold goes out before libcurl delivers more.
            let action = machine.demand()
            if let decoding { drainDecoded(decoding) }
            perform(action)
        }

        /// libcurl reports the transfer done with `code`.
        func complete(_ code: Int32) {
            if let decoding, decodingTakesCompletion(code, decoding) { return }
            perform(machine.complete(code == CurlCode.ok ? nil : failure(code)))
        }

        private func perform(_ action: CurlExchangeState<Continuation>.Action) {
            switch action {
            case .none, .write, .pause, .abort:
                break
            case .add:
                if let problem = setUp() {
                    perform(machine.cancel(problem))
                } else if let easy {
                    loop.add(easy, for: self)
                }
            case .answer(let continuation, let outcome):
                release()
                continuation.resume(returning: outcome)
            case .removeAndAnswer(let continuation, let outcome):
                // Off the multi before the caller hears: a transfer cut short closes its connection
                // here, and no piece can reach the sink after the caller has its outcome.
                if let easy { loop.remove(easy) }
                release()
                continuation.resume(returning: outcome)
            case .deliverHead(let head):
                do throws(HTTPClientError) {
                    try sink.receive(head)
                    decoding = CurlBodyDecoding(head: head, method: request.method, decompresses: options.decompresses)
                } catch {
                    perform(machine.fail(error))
                }
            case .unpause:
                if let easy { _ = libcurl_easy_pause(easy, CurlControl.pauseContinue) }
            }
        }

        private func release() {
            if let easy { loop.recycle(easy) }
            easy = nil
            if case .file(_, let handle?) = upload { try? handle.close() }
            upload = .none
        }

        // MARK: Setting the handle up

        /// Makes the easy handle for the request; returns why it cannot be made, if it cannot.
        private func setUp() -> HTTPClientError? {
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
            // A backstop a second after the library's deadline, which governs (it cancels the call).
            let remaining = context.remainingTime.components
            if remaining.seconds < 86_400 { set(CurlOption.timeoutMilliseconds, Int(remaining.seconds) * 1000 + 1000) }
            ok = ok && setMethodAndBody(easy, me)
            ok = ok && setHeaders(easy)
            guard ok else {
                let reason = "libcurl \(libcurlVersion) refused to set this request up (its URL, method, body or headers)"
                return .transport(.unknown, reason, url: request.url)
            }
            switch options.apply(to: easy, scheme: request.url.scheme) {
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
                let why = exists ? "cannot be read by this process (check its permissions)" : "does not exist"
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
        private static func headerList(for request: OutgoingRequest) -> UnsafeMutableRawPointer? {
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

        // MARK: Callbacks, on the loop thread inside libcurl

        /// One line of a response head. Read as bytes, not as a `String`: this runs on the loop thread
        /// for every line of every response, and character-level trimming there cost a third of the
        /// thread's time with 64 small calls in flight.
        fileprivate func headerLine(_ bytes: UnsafeRawBufferPointer) -> Int {
            var end = bytes.count
            while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
            if Self.isStatusLine(line) {
                status = Self.statusCode(in: line)
                // Room for a usual head at once, not grown field by field on the loop thread.
                fields = []
                fields.reserveCapacity(16)
            } else if line.isEmpty {
                // The end of a head; an interim `1xx` is followed by the real one.
                guard let status, !(100..<200).contains(status) else { return bytes.count }
                perform(machine.head(ResponseHead(statusCode: status, headers: HeaderFields(fields), url: request.url)))
                if case .failing = machine.state { return 0 }
            } else if line[0] == 0x20 || line[0] == 0x09, let last = fields.popLast() {
                // An obsolete folded continuation of the previous field's value.
                fields.append(HeaderFields.Field(name: last.name, value: last.value + " " + Self.trimmedText(line)))
            } else if let colon = line.firstIndex(of: 0x3A) {
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
                let value = Self.trimmedText(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
                fields.append(HeaderFields.Field(name: name, value: value))
            }
            return bytes.count
        }

        /// Whether `line` starts with `HTTP/`; compared byte by byte, as the generic `starts(with:)`
        /// cost about a hundred instructions per line of every head.
        private static func isStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
            line.count >= 5 && line[0] == 0x48 && line[1] == 0x54 && line[2] == 0x54 && line[3] == 0x50 && line[4] == 0x2F
        }

        /// The status code of a status line (`HTTP/1.1 200 OK`): the second word, when it is a number.
        private static func statusCode(in line: UnsafeRawBufferPointer) -> Int? {
            guard var index = line.firstIndex(of: 0x20) else { return nil }
            while index < line.count, line[index] == 0x20 { index += 1 }
            var code = 0
            var digits = 0
            while index < line.count, line[index] != 0x20 {
                let byte = line[index]
                guard (0x30...0x39).contains(byte), digits < 9 else { return nil }
                code = code * 10 + Int(byte - 0x30)
                digits += 1
                index += 1
            }
            return digits > 0 ? code : nil
        }

        /// `bytes` as text without the spaces and tabs around it (HTTP's optional white space).
        private static func trimmedText(_ bytes: UnsafeRawBufferPointer) -> String {
            var start = 0
            var end = bytes.count
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        fileprivate func bodyPiece(_ bytes: UnsafeRawBufferPointer) -> Int {
            if let decoding { return decodedPiece(bytes, decoding) }
            return writePiece(bytes)
        }

        /// Writes a piece of the body as the sink takes it (decoded, when the body was encoded):
        /// returns what libcurl's write callback returns.
        func writePiece(_ bytes: UnsafeRawBufferPointer) -> Int {
            if round != loop.round {
                round = loop.round
                roundBytes = 0
            }
            if roundBytes >= CurlLoop.roundBudget, loop.isShared {
                // libcurl keeps the piece; the machine is not asked, so its demand state is untouched.
                loop.yieldRound(self)
                return CurlControl.writePause
            }
            roundBytes += bytes.count
            switch machine.piece() {
            case .write(let askForDemand):
                do throws(HTTPClientError) {
                    try sink.write(bytes)
                } catch {
                    perform(machine.fail(error))
                    return 0
                }
                receivedBytes += Int64(bytes.count)
                if askForDemand { askForDemandAfterPiece() }
                return bytes.count
            case .pause:
                return CurlControl.writePause
            default:
                return 0
            }
        }

        /// A new round of the loop: a transfer that paused over its budget receives again (libcurl
        /// redelivers the piece it kept), unless it was cut meanwhile or its sink asked it to wait.
        func resumeRound() {
            guard let easy, loop.isRunning(easy) else { return }
            if let decoding {
                drainDecoded(decoding)
                // Still holding: the round's budget or the sink stopped them again.
                guard self.easy != nil, !decoding.holdsBytes else { return }
            }
            if case .streaming(_, _, .paused) = machine.state { return }
            _ = libcurl_easy_pause(easy, CurlControl.pauseContinue)
        }

        /// Asks the sink, in a task, whether it has room for the next piece; the answer comes back
        /// to the loop as a command. A stream's consumer that left ends the exchange this way too.
        private func askForDemandAfterPiece() {
            // A sink with room says so here: no task and no loop wake-up per piece.
            if let streamSink, (try? streamSink.hasRoom()) == true {
                perform(machine.demand())
                return
            }
            let sink = self.sink
            let loop = self.loop
            Task { [self] in
                do throws(HTTPClientError) {
                    try await sink.waitForDemand()
                    loop.post(.demand(self))
                } catch {
                    loop.post(.cancel(self, error))
                }
            }
        }

        fileprivate func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            switch upload {
            case .none:
                return 0
            case .data(let data, let offset):
                let count = min(buffer.count, data.count - offset)
                guard count > 0 else { return 0 }
                let start = data.startIndex + offset
                data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<start + count)
                upload = .data(data, offset: offset + count)
                return count
            case .file(let url, let open):
                do {
                    let handle = try open ?? FileHandle(forReadingFrom: url)
                    upload = .file(url, handle)
                    let piece = try handle.read(upToCount: buffer.count) ?? Data()
                    return piece.copyBytes(to: buffer.bindMemory(to: UInt8.self))
                } catch {
                    _ = machine.fail(
                        .transport(.cannotOpenFile, "the request body file \(url.lastPathComponent) could not be read", url: request.url))
                    return CurlControl.readAbort
                }
            }
        }

        fileprivate func progress(sent: Int64) {
            context.reportUpload(sentBytes: sent, totalBytes: uploadLength)
        }

        /// The error for a transfer libcurl ended with `code`, from what this exchange saw.
        private func failure(_ code: Int32) -> HTTPClientError {
            let proxy = CurlProxy(options.proxy(forScheme: request.url.scheme))
            var connectCode = 0
            if let easy, !proxy.value.isEmpty, libcurl_easy_getinfo_long(easy, CurlInfo.httpConnectCode, &connectCode) == 0,
                connectCode != 0, !(200..<300).contains(connectCode)
            {
                return .proxyRefused(statusCode: connectCode, proxy: proxy.shown)
            }
            let detail = String(cString: errorText)
            let said = detail.isEmpty ? String(cString: libcurl_easy_strerror(code)) : detail
            return CurlFailure(
                code: code, libcurlText: said, headArrived: status != nil, receivedBytes: receivedBytes, url: request.url, proxy: proxy
            ).error
        }
    }

    private func exchange(_ user: UnsafeMutableRawPointer?) -> CurlExchange? {
        user.map { Unmanaged<CurlExchange>.fromOpaque($0).takeUnretainedValue() }
    }

    private let curlWrite: libcurl_data_callback = { bytes, size, count, user in
        let length = size * count
        return exchange(user).map { size_t($0.bodyPiece(UnsafeRawBufferPointer(start: bytes, count: length))) } ?? 0
    }

    private let curlHeader: libcurl_data_callback = { bytes, size, count, user in
        let length = size * count
        return exchange(user).map { size_t($0.headerLine(UnsafeRawBufferPointer(start: bytes, count: length))) } ?? 0
    }

    private let curlRead: libcurl_data_callback = { bytes, size, count, user in
        let length = size * count
        return exchange(user).map { size_t($0.read(into: UnsafeMutableRawBufferPointer(start: bytes, count: length))) }
            ?? size_t(CurlControl.readAbort)
    }

    private let curlProgress: libcurl_progress_callback = { user, _, _, _, uploaded in
        exchange(user)?.progress(sent: uploaded)
        return 0
    }
#endif
