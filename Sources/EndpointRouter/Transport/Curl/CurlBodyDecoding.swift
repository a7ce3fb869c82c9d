#if os(Linux)
    import Foundation

    extension CurlOption {
        /// `CURLOPT_HTTP_CONTENT_DECODING` (long, 158), set to 0: libcurl hands the body over as
        /// sent, and ``CurlBodyDecoding`` decodes it above the pause.
        static let httpContentDecoding: Int32 = 158
    }

    /// The decoding of one response body on ``CurlTransport``: ``CurlDecodingState`` decides, this
    /// runs the decoders (``ContentDecoderChain``) and writes their pieces through the exchange.
    ///
    /// libcurl's own decoding went on while a transfer was paused and held its output: 4 slow gzip
    /// streams grew memory by 47 MiB, a zstd one by 135 MiB. Here a paused transfer holds at most one
    /// encoded piece, one decoded piece and the decoders' windows (issue 39, item 8).
    final class CurlBodyDecoding {
        /// `Accept-Encoding` for a transport that decompresses: the codings whose library loaded;
        /// `nil` when none did (an empty `CURLOPT_ACCEPT_ENCODING` would offer all of libcurl's).
        static let acceptEncoding: String? = {
            let offered = CurlDecodingState.Coding.allCases.filter(ContentDecoderChain.isAvailable)
            return offered.isEmpty ? nil : offered.map(\.token).joined(separator: ", ")
        }()

        /// The codings a body may have and still be decoded (those offered).
        private static let available = Set(CurlDecodingState.Coding.allCases.filter(ContentDecoderChain.isAvailable))

        /// The decisions; this class only runs what they say.
        private(set) var machine: CurlDecodingState
        /// The decoders; `nil` for a body refused at its head (or when there was no memory for them).
        private let chain: ContentDecoderChain?
        /// The decoded piece the sink had no room for, at `pendingStart..<pendingEnd`: one piece at most.
        private let output: UnsafeMutableRawBufferPointer
        /// See ``output``.
        private var pendingStart = 0
        /// See ``output``.
        private var pendingEnd = 0
        /// Decoded bytes the sink took, for the error text ("after N bytes").
        private var decodedBytes: Int64 = 0
        /// The URL that answered, for the error.
        private let url: URL?
        /// The failure found inside libcurl's write callback, reported when libcurl ends the transfer.
        private(set) var failure: HTTPClientError?

        /// The decoding `head`'s body needs; `nil` when it needs none (the body goes to the sink as is).
        init?(head: ResponseHead, method: RequestMethod, decompresses: Bool) {
            // Most responses have no Content-Encoding: this runs on the loop thread for every head, so
            // names are told apart by length first (as `expectedBodyLength` does) and no array is built.
            guard decompresses,
                head.headers.fields.contains(where: { $0.name.utf8.count == 16 && $0.name.caseInsensitiveEquals("Content-Encoding") })
            else { return nil }
            let plan = CurlDecodingState.plan(
                method: method, status: head.statusCode, contentEncoding: head.headers.values(for: "Content-Encoding"),
                decompresses: decompresses, available: Self.available)
            url = head.url
            switch plan {
            case .none:
                return nil
            case .refuse(let coding):
                machine = CurlDecodingState(.refusing(coding))
                chain = nil
                output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
            case .decode(let codings):
                machine = CurlDecodingState(.idle)
                chain = ContentDecoderChain(codings)
                output = .allocate(byteCount: ContentDecoderChain.pieceSize, alignment: 16)
                if chain == nil { failure = Self.noDecoder(url) }
            }
        }

        deinit {
            output.deallocate()
        }

        private static func noDecoder(_ url: URL?) -> HTTPClientError {
            .transport(.resourceUnavailable, "there was no memory for the response body's decoder", url: url)
        }

        /// The caller's error for `failure`.
        func error(_ failure: CurlDecodingState.Failure) -> HTTPClientError {
            failure.error(decodedBytes: decodedBytes, offered: Self.acceptEncoding ?? "no coding", url: url)
        }

        /// Records `failure` for libcurl's end of the transfer (a callback cannot end the exchange).
        func record(_ failure: HTTPClientError) {
            if self.failure == nil { self.failure = failure }
        }

        // MARK: Events, passed to the state machine

        /// libcurl has an encoded piece of `count` bytes (see ``CurlDecodingState/piece(count:)``).
        func piece(count: Int) -> CurlDecodingState.Action { machine.piece(count: count) }
        /// libcurl finished without an error of its own (see ``CurlDecodingState/transferEnded()``).
        func transferEnded() -> CurlDecodingState.Action { machine.transferEnded() }
        /// The sink has room or a round began (see ``CurlDecodingState/room()``).
        func room() -> CurlDecodingState.Action { machine.room() }

        /// Whether the decoders hold bytes the sink has not taken.
        var holdsBytes: Bool { machine.state == .holding || machine.state == .draining }

        /// Feeds libcurl's piece to the decoders and writes out what comes, while `write` takes it.
        func decode(_ bytes: UnsafeRawBufferPointer, write: (UnsafeRawBufferPointer) -> Int) -> CurlDecodingState.Action {
            chain?.feed(bytes)
            return drain(write: write)
        }

        /// Writes out what the decoders hold, piece by piece, while `write` (the exchange's way to the
        /// sink: the count, `CURL_WRITEFUNC_PAUSE`, or 0 for a failure) takes each whole.
        func drain(write: (UnsafeRawBufferPointer) -> Int) -> CurlDecodingState.Action {
            let outcome = run(write)
            switch outcome {
            case .holding: chain?.keepInput()
            case .corrupt, .refused: chain?.dropInput()
            case .empty: break
            }
            return machine.ran(outcome)
        }

        private func run(_ write: (UnsafeRawBufferPointer) -> Int) -> CurlDecodingState.Outcome {
            guard let chain else { return .refused }
            while true {
                if pendingStart < pendingEnd {
                    let piece = UnsafeRawBufferPointer(rebasing: output[pendingStart..<pendingEnd])
                    let taken = write(piece)
                    if taken == CurlControl.writePause { return .holding }
                    guard taken == piece.count else { return .refused }
                    decodedBytes += Int64(taken)
                    pendingStart = pendingEnd
                }
                let count: Int
                do throws(ContentDecoderChain.Corrupt) {
                    count = try chain.next(into: output)
                } catch {
                    return .corrupt(error.problem)
                }
                guard count > 0 else {
                    // A decoder that takes nothing more and gives nothing has input it cannot use.
                    return chain.isEmpty ? .empty(ended: chain.hasEnded) : .corrupt("the decoder stopped with input left")
                }
                pendingStart = 0
                pendingEnd = count
            }
        }
    }

    extension CurlExchange {
        /// libcurl's piece of an encoded body: decoded above the pause. Returns what libcurl's write
        /// callback returns: the piece's size once the decoders took it (what they could not write
        /// yet is kept), `CURL_WRITEFUNC_PAUSE` while they still hold bytes, or 0 to fail.
        func decodedPiece(_ bytes: UnsafeRawBufferPointer, _ decoding: CurlBodyDecoding) -> Int {
            while true {
                switch decoding.piece(count: bytes.count) {
                case .decode:
                    switch decoding.decode(bytes, write: writePiece) {
                    case .none: return bytes.count
                    case .fail(let failure): decoding.record(decoding.error(failure))
                    default: break
                    }
                    return 0
                case .drain:
                    switch decoding.drain(write: writePiece) {
                    case .none where decoding.holdsBytes: return CurlControl.writePause
                    case .none: continue
                    case .fail(let failure): decoding.record(decoding.error(failure))
                    default: break
                    }
                    return 0
                case .none:
                    return bytes.count
                case .fail(let failure):
                    decoding.record(decoding.error(failure))
                    return 0
                case .abort, .complete, .wait:
                    return 0
                }
            }
        }

        /// Writes out what the decoders hold, outside libcurl's callbacks (the sink has room, or a
        /// new round began), and hands on libcurl's completion once they are empty.
        func drainDecoded(_ decoding: CurlBodyDecoding) {
            guard decoding.room() == .drain else { return }
            switch decoding.drain(write: writePiece) {
            case .complete:
                complete(CurlCode.ok)
            case .fail(let failure):
                cancel(decoding.error(failure))
            case .abort:
                // The sink refused a piece: the exchange is failing with the sink's error, which a
                // cancel answers (libcurl may be paused and would not call back).
                cancel(.invalidResponse)
            case .none, .decode, .drain, .wait:
                break
            }
        }

        /// Whether the decoding takes libcurl's completion with `code`: to report its own failure,
        /// to write out what the decoders hold first, or to fail a body cut inside its compressed stream.
        func decodingTakesCompletion(_ code: Int32, _ decoding: CurlBodyDecoding) -> Bool {
            if let failure = decoding.failure {
                cancel(failure)
                return true
            }
            guard code == CurlCode.ok else { return false }
            switch decoding.transferEnded() {
            case .wait:
                return true
            case .fail(let failure):
                cancel(decoding.error(failure))
                return true
            case .none, .decode, .drain, .abort, .complete:
                return false
            }
        }
    }
#endif
