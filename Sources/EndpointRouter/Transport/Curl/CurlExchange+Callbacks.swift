#if os(Linux)
    internal import CLibcurl
    import Foundation

    /// libcurl's callbacks, on the loop thread inside libcurl: the response head line by line, the
    /// body piece by piece (paused while the sink has no room), the request body and its progress.
    extension CurlExchange {
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
    }

    private func exchange(_ user: UnsafeMutableRawPointer?) -> CurlExchange? {
        user.map { Unmanaged<CurlExchange>.fromOpaque($0).takeUnretainedValue() }
    }

    // The callbacks are internal, not private: `setUp()` (CurlExchange+Setup.swift) hands them to libcurl.
    let curlWrite: libcurl_data_callback = { bytes, size, count, user in
        let length = size * count
        return exchange(user).map { size_t($0.bodyPiece(UnsafeRawBufferPointer(start: bytes, count: length))) } ?? 0
    }

    let curlHeader: libcurl_data_callback = { bytes, size, count, user in
        let length = size * count
        return exchange(user).map { size_t($0.headerLine(UnsafeRawBufferPointer(start: bytes, count: length))) } ?? 0
    }

    let curlRead: libcurl_data_callback = { bytes, size, count, user in
        let length = size * count
        return exchange(user).map { size_t($0.read(into: UnsafeMutableRawBufferPointer(start: bytes, count: length))) }
            ?? size_t(CurlControl.readAbort)
    }

    let curlProgress: libcurl_progress_callback = { user, _, _, _, uploaded in
        exchange(user)?.progress(sent: uploaded)
        return 0
    }
#endif
