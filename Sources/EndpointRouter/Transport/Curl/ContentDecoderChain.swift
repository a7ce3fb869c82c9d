#if os(Linux)
    internal import CLibcurl

    /// The decoders of one response body, in the order the bytes go through them (`gzip, br` is
    /// decoded br first), over the C wrappers of `Decoders.c`. It decodes one bounded piece at a time
    /// and holds, between pieces, at most one libcurl piece of input and one piece per stage.
    ///
    /// Only the transport's loop thread uses it (``CurlExchange`` owns it), so it needs no lock.
    final class ContentDecoderChain {
        /// The most one decoded piece holds: libcurl's own write size (`CURL_MAX_WRITE_SIZE`), so
        /// sinks and the loop's round budget see the same pieces as for a body sent as is.
        static let pieceSize = 16 * 1024

        /// Thrown when a decoder refuses its input; `problem` is the library's own words.
        struct Corrupt: Error {
            /// What the decoder said, for the caller's error.
            let problem: String
        }

        /// The C decoders, one per coding, in the order the bytes go through them.
        private let decoders: [OpaquePointer]
        /// Stage `i`'s output, the input of stage `i + 1` (the last stage writes into the caller's buffer).
        private let buffers: [UnsafeMutableRawBufferPointer]
        /// The bytes of each of ``buffers`` not yet taken by the next stage: `starts[i]..<ends[i]`.
        private var starts: [Int]
        /// See ``starts``.
        private var ends: [Int]
        /// The encoded bytes not yet decoded: libcurl's piece during its callback, or ``held``.
        private var input = UnsafeRawBufferPointer(start: nil, count: 0)
        /// Where ``input`` is kept once the callback returns; grown to the largest piece kept.
        private var held = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        /// Whether ``input`` lies in ``held`` already.
        private var inputIsHeld = false

        /// Decoders for `codings`; `nil` when one cannot be made (its library is missing, or no memory).
        init?(_ codings: [CurlDecodingState.Coding]) {
            var made: [OpaquePointer] = []
            for coding in codings {
                guard let decoder = content_decoder_make(Self.constant(coding)) else {
                    for decoder in made { content_decoder_free(decoder) }
                    return nil
                }
                made.append(decoder)
            }
            decoders = made
            buffers = made.dropLast().map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceSize, alignment: 16) }
            starts = Array(repeating: 0, count: buffers.count)
            ends = starts
        }

        deinit {
            for decoder in decoders { content_decoder_free(decoder) }
            for buffer in buffers { buffer.deallocate() }
            held.deallocate()
        }

        /// Whether `coding`'s library is loaded, so that it may be offered in `Accept-Encoding`.
        static func isAvailable(_ coding: CurlDecodingState.Coding) -> Bool {
            content_decoder_available(constant(coding)) != 0
        }

        private static func constant(_ coding: CurlDecodingState.Coding) -> Int32 {
            switch coding {
            case .gzip: Int32(CONTENT_CODING_GZIP)
            case .deflate: Int32(CONTENT_CODING_DEFLATE)
            case .brotli: Int32(CONTENT_CODING_BROTLI)
            case .zstd: Int32(CONTENT_CODING_ZSTD)
            }
        }

        /// Whether nothing is left to decode: no input, and nothing between stages.
        var isEmpty: Bool { input.isEmpty && zip(starts, ends).allSatisfy { $0 == $1 } }

        /// Whether every stage's stream ended whole.
        var hasEnded: Bool { decoders.allSatisfy { content_decoder_ended($0) != 0 } }

        /// Takes libcurl's piece as the input, borrowed for the callback's length: ``keepInput()``
        /// copies what is left before the callback returns. The chain has no input left (the state
        /// machine drains it first).
        func feed(_ bytes: UnsafeRawBufferPointer) {
            input = bytes
            inputIsHeld = false
        }

        /// Copies the input left into ``held``: libcurl's buffer is gone once its callback returns.
        func keepInput() {
            guard !input.isEmpty, !inputIsHeld else { return }
            if held.count < input.count {
                held.deallocate()
                held = .allocate(byteCount: max(input.count, Self.pieceSize), alignment: 16)
            }
            held.copyMemory(from: input)
            input = UnsafeRawBufferPointer(rebasing: held[0..<input.count])
            inputIsHeld = true
        }

        /// Forgets the input (after a failure, libcurl's piece may be gone).
        func dropInput() {
            input = UnsafeRawBufferPointer(start: nil, count: 0)
        }

        /// Decodes into `output` as much as fits, or what the input allows; 0 when it needs more input.
        func next(into output: UnsafeMutableRawBufferPointer) throws(Corrupt) -> Int {
            try produce(decoders.count - 1, into: output)
        }

        /// Fills `output` from stage `stage`, refilling the stage's input from the stage before.
        private func produce(_ stage: Int, into output: UnsafeMutableRawBufferPointer) throws(Corrupt) -> Int {
            guard let base = output.baseAddress else { return 0 }
            var total = 0
            while total < output.count {
                if stage > 0, starts[stage - 1] == ends[stage - 1] {
                    ends[stage - 1] = try produce(stage - 1, into: buffers[stage - 1])
                    starts[stage - 1] = 0
                }
                let source =
                    stage == 0 ? input : UnsafeRawBufferPointer(rebasing: buffers[stage - 1][starts[stage - 1]..<ends[stage - 1]])
                var consumed = 0
                var produced = 0
                var problem: UnsafePointer<CChar>?
                let status = content_decoder_run(
                    decoders[stage], source.baseAddress?.assumingMemoryBound(to: UInt8.self), source.count, &consumed,
                    (base + total).assumingMemoryBound(to: UInt8.self), output.count - total, &produced, &problem)
                if status == Int32(CONTENT_DECODE_ERROR) {
                    throw Corrupt(problem: problem.map { String(cString: $0) } ?? "invalid data")
                }
                if stage == 0 {
                    input = UnsafeRawBufferPointer(rebasing: input[consumed...])
                } else {
                    starts[stage - 1] += consumed
                }
                total += produced
                if consumed == 0 && produced == 0 { break }
            }
            return total
        }
    }
#endif
