#if os(Linux)
    import Foundation

    /// Which of the files a ``CurlTransport``'s settings name (its certificate authority, client
    /// certificate and key) a loop found readable, and when. Each exchange checks them before it
    /// sends, so that a missing or unreadable file fails the call with a message naming it; asked
    /// of the file system every time, the check was an `access` call on every request, about 3 % of
    /// the samples of `Load library conc64-small` over TLS (issue 41). A file found readable is
    /// taken at its word for ``recheckInterval``; one found unreadable is asked about again each
    /// time, so a file put in place is seen at the next call. A file removed is noticed within the
    /// interval; until then calls go on with what libcurl loaded from it (libcurl may keep the trust
    /// it read, or fail a new connection with an error that names the setting).
    struct CurlReadableFiles {
        /// How long a file found readable is not asked about again, in nanoseconds.
        static let recheckInterval: UInt64 = 1_000_000_000
        /// When each file was last found readable, on the loop's clock. At most one entry a setting.
        private var foundReadable: [String: UInt64] = [:]

        /// Whether the file system holds a file at `path` this process can read: a folder is readable
        /// to `access`, but no file of certificates or keys.
        static func isReadableFile(_ path: String) -> Bool {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
                && FileManager.default.isReadableFile(atPath: path)
        }

        /// Whether `path` is readable, asking `probe` (the file system) only when the last answer
        /// for it was not a yes within ``recheckInterval`` before `now`.
        mutating func isReadable(_ path: String, now: UInt64, probe: (String) -> Bool) -> Bool {
            if let seen = foundReadable[path], now >= seen, now - seen < Self.recheckInterval { return true }
            guard probe(path) else {
                foundReadable[path] = nil
                return false
            }
            foundReadable[path] = now
            return true
        }
    }
#endif
