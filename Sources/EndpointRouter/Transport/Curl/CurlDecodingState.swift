import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the decoding of one response body is, and what to do on each event: the decisions of
/// ``CurlBodyDecoding`` without any decoder or I/O, so that every transition is tested as a table
/// (`CurlDecodingStateTests`).
///
/// libcurl hands the body over encoded (its own decoding went on while a transfer was paused and held
/// the output, issue 39 item 8); the exchange decodes it a piece at a time and stops between pieces
/// when the sink has no room. The decoders then hold at most one libcurl piece of input and one
/// decoded piece, and libcurl keeps the next encoded piece: a small constant whatever the ratio.
struct CurlDecodingState: Equatable {
    /// A content coding the transport can decode.
    enum Coding: Equatable, Sendable, CaseIterable {
        /// The codings libcurl decoded before (with zstd and br where built in), so that no server's
        /// answer that decoded then fails now.
        case gzip, deflate, brotli, zstd

        /// Its name in `Accept-Encoding`.
        var token: String {
            switch self {
            case .gzip: "gzip"
            case .deflate: "deflate"
            case .brotli: "br"
            case .zstd: "zstd"
            }
        }

        /// The coding a `Content-Encoding` token names (lowercased), as libcurl reads them; `nil`
        /// for one the transport does not know (`compress`, `snappy`, …).
        init?(token: String) {
            switch token {
            case "gzip", "x-gzip": self = .gzip
            case "deflate": self = .deflate
            case "br": self = .brotli
            case "zstd": self = .zstd
            default: return nil
            }
        }
    }

    /// What a response's body needs.
    enum Plan: Equatable {
        /// Nothing: no coding, only `identity`, decompression off, or no body (HEAD, 1xx, 204, 304).
        case none
        /// These decoders, in the order the body goes through them (the last coding applied first).
        case decode([Coding])
        /// A coding the transport cannot decode: the body fails at its first byte, as libcurl failed
        /// it. Passing it through would hand encoded bytes to a caller told that bodies are decoded.
        case refuse(String)
    }

    /// Why the body cannot be delivered decoded.
    enum Failure: Equatable {
        /// A coding not offered, or not known: its name, for the caller to act on.
        case unsupported(String)
        /// The decoder's own words.
        case corrupt(String)
        /// libcurl finished the body inside its compressed stream.
        case truncated
    }

    /// Where the decoding is; the decoders and buffers lie in ``CurlBodyDecoding`` beside it.
    enum State: Equatable {
        /// A coding the transport cannot decode: the first byte fails.
        case refusing(String)
        /// The decoders hold nothing for the sink: the next piece of libcurl goes in.
        case idle
        /// The decoders hold bytes the sink had no room for: they go out before anything else.
        case holding
        /// libcurl finished while the decoders held bytes: its completion waits for them.
        case draining
        /// The body failed (corrupt, refused, cut short, or the sink refused a piece): nothing more goes in.
        case failed
        /// The body is decoded whole and libcurl's completion went to the exchange.
        case finished
    }

    /// What the decoders did when they last ran (fed a piece, or drained).
    enum Outcome: Equatable {
        /// Everything went to the sink; `ended`: the compressed stream ended whole.
        case empty(ended: Bool)
        /// They stopped with bytes the sink had no room for (or the round's budget was spent).
        case holding
        /// A decoder refused its input, in its own words.
        case corrupt(String)
        /// The sink or the exchange refused a piece: the exchange has its failure already.
        case refused
    }

    /// What the shell does after an event.
    enum Action: Equatable {
        /// Nothing more: the piece was taken (or kept), or the event changed nothing.
        case none
        /// Feed libcurl's piece to the decoders and write out what comes, while the sink has room.
        case decode
        /// Write out what the decoders hold first, then ask again.
        case drain
        /// Tell libcurl to stop with an error; the exchange reports its own.
        case abort
        /// End the exchange with this failure (from a callback, when libcurl reports the end).
        case fail(Failure)
        /// The body is whole: libcurl's completion goes on to the exchange.
        case complete
        /// libcurl's completion waits until the decoders are drained.
        case wait
    }

    /// Only the machine's events change it, so that the table tests cover every path.
    private(set) var state: State
    /// Whether any encoded byte arrived: an empty body is a whole one.
    private(set) var receivedInput = false
    /// Whether the compressed stream ended whole when the decoders last emptied.
    private(set) var streamEnded = false

    /// A machine in `state`: ``State/idle`` for a body to decode, ``State/refusing(_:)`` for one that
    /// cannot be; any state for the table tests.
    init(_ state: State) {
        self.state = state
    }

    /// The plan for a response: `contentEncoding` are its `Content-Encoding` values in order.
    static func plan(
        method: RequestMethod, status: Int, contentEncoding: [String], decompresses: Bool, available: Set<Coding>
    ) -> Plan {
        guard decompresses, ResponseHead.hasBody(statusCode: status, answering: method) else { return .none }
        var codings: [Coding] = []
        for value in contentEncoding {
            for part in value.split(separator: ",") {
                let token = part.trimmingCharacters(in: .whitespaces).lowercased()
                guard !token.isEmpty, token != "identity" else { continue }
                guard let coding = Coding(token: token), available.contains(coding) else { return .refuse(token) }
                codings.append(coding)
            }
        }
        // libcurl's bound (MAX_ENCODE_STACK): a longer stack is an attack, not a body.
        guard codings.count <= 5 else { return .refuse(codings.map(\.token).joined(separator: ", ")) }
        return codings.isEmpty ? .none : .decode(codings.reversed())
    }

    /// libcurl has a piece of `count` encoded bytes.
    mutating func piece(count: Int) -> Action {
        switch state {
        case .refusing(let coding):
            guard count > 0 else { return .none }
            state = .failed
            return .fail(.unsupported(coding))
        case .idle:
            receivedInput = receivedInput || count > 0
            return .decode
        case .holding:
            return .drain
        case .draining, .failed, .finished:
            // Nothing comes after libcurl's end; after a failure libcurl is stopping.
            return .abort
        }
    }

    /// The decoders ran, fed or drained, with `outcome`.
    mutating func ran(_ outcome: Outcome) -> Action {
        switch (state, outcome) {
        case (.idle, .empty(let ended)), (.holding, .empty(let ended)):
            state = .idle
            streamEnded = ended
            return .none
        case (.idle, .holding), (.holding, .holding), (.draining, .holding):
            state = state == .draining ? .draining : .holding
            return .none
        case (.draining, .empty(let ended)):
            streamEnded = ended
            return finish()
        case (.idle, .corrupt(let problem)), (.holding, .corrupt(let problem)), (.draining, .corrupt(let problem)):
            state = .failed
            return .fail(.corrupt(problem))
        case (.idle, .refused), (.holding, .refused), (.draining, .refused):
            state = .failed
            return .abort
        case (.refusing, _), (.failed, _), (.finished, _):
            return .none
        }
    }

    /// libcurl finished the transfer without an error of its own.
    mutating func transferEnded() -> Action {
        switch state {
        case .refusing, .finished:
            // No byte came to refuse; or the drained completion comes back through here.
            state = .finished
            return .complete
        case .idle:
            return finish()
        case .holding, .draining:
            state = .draining
            return .wait
        case .failed:
            return .none
        }
    }

    /// The sink has room again, or a new round of the loop began.
    mutating func room() -> Action {
        state == .holding || state == .draining ? .drain : .none
    }

    private mutating func finish() -> Action {
        guard streamEnded || !receivedInput else {
            state = .failed
            return .fail(.truncated)
        }
        state = .finished
        return .complete
    }
}

extension CurlDecodingState.Failure {
    /// The error a caller gets: `.cannotDecodeContentData`, in the sentence the transport gave for
    /// libcurl's own decoding failures (``CurlFailure``), with what the decoder said.
    func error(decodedBytes: Int64, offered: String, url: URL?) -> HTTPClientError {
        switch self {
        case .unsupported(let coding):
            return .transport(
                .cannotDecodeContentData,
                "The response body's Content-Encoding `\(coding)` is not one this transport can decode (it asks for \(offered)); "
                    + "ask the server for another, or set decompresses to false to receive the encoded body.",
                url: url)
        case .corrupt(let problem):
            return .transport(
                .cannotDecodeContentData,
                "The response body's Content-Encoding is corrupt and could not be decompressed after \(decodedBytes) bytes (\(problem)).",
                url: url)
        case .truncated:
            return .transport(
                .cannotDecodeContentData,
                "The response body's Content-Encoding is corrupt and could not be decompressed after \(decodedBytes) bytes "
                    + "(the body ended inside its compressed stream).",
                url: url)
        }
    }
}
