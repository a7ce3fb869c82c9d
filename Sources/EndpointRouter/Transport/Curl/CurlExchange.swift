#if os(Linux)
    internal import CLibcurl
    import Foundation

    /// One exchange on libcurl: the easy handle, its callbacks, and the shell that performs what
    /// ``CurlExchangeState`` decides.
    ///
    /// Everything here except `init` runs on the transport's loop thread (``CurlLoop``), which alone
    /// calls libcurl; that confinement is what makes the unchecked `Sendable` safe. Setting the
    /// handle up is in `CurlExchange+Setup.swift`, libcurl's callbacks in
    /// `CurlExchange+Callbacks.swift`, the body's decoding in `CurlBodyDecoding.swift`: the state
    /// below is internal rather than private for them, and touched by nothing else.
    final class CurlExchange: CuttableExchange, @unchecked Sendable {
        typealias Outcome = Result<ResponseHead, HTTPClientError>
        /// Unsafe rather than checked: ``CurlExchangeState`` answers the caller exactly once by
        /// construction (its table tests say so), and the checked one costs an allocation per exchange.
        typealias Continuation = UnsafeContinuation<Outcome, Never>

        /// A request body as libcurl's read callback takes it.
        enum Upload {
            case none
            case data(Data, offset: Int)
            case file(URL, FileHandle?)
        }

        let request: OutgoingRequest
        /// The id of the request's origin (``CurlLoopGroupState/HostLoad/origin``), for the loop's admission.
        let origin: Int
        let context: CallContext
        let sink: any ResponseBodySink
        /// The sink, when it is a stream's: it can tell at once, on the loop thread, whether it has
        /// room for the next piece, so that a stream with room costs no task, no loop wake-up and no
        /// pause per piece; only a full one is asked ``ResponseBodySink/waitForDemand()`` in a task.
        let streamSink: StreamBodySink?
        let options: CurlTransport.Configuration
        let loop: CurlLoop
        var machine: CurlExchangeState<Continuation>
        var easy: UnsafeMutableRawPointer?
        /// The request's header lines for `CURLOPT_HTTPHEADER`, made on the caller's thread (it calls
        /// nothing of libcurl) to spare the loop thread; `nil` only when there was no memory for it.
        let headerList: UnsafeMutableRawPointer?
        /// libcurl's detail on a failure (`CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE` bytes).
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        var upload = Upload.none
        let uploadLength: Int64?
        /// The response being read: libcurl hands its head over line by line.
        var status: Int?
        var fields: [HeaderFields.Field] = []
        var receivedBytes: Int64 = 0
        /// The loop's round in which ``roundBytes`` were taken (see ``CurlLoop/roundBudget``).
        var round = 0
        var roundBytes = 0
        /// The body's decoding, made at the head when it has a `Content-Encoding` to decode.
        var decoding: CurlBodyDecoding?

        init(
            _ request: OutgoingRequest, origin: Int, context: CallContext, sink: any ResponseBodySink,
            options: CurlTransport.Configuration, loop: CurlLoop
        ) {
            self.request = request
            self.origin = origin
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

        func perform(_ action: CurlExchangeState<Continuation>.Action) {
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
#endif
