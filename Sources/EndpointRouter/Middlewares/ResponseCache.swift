import Foundation

/// The store behind ``CachingMiddleware``: responses in memory within a byte budget, least recently
/// used evicted first, and optionally on disk in a directory you name, within a budget of its own.
///
/// Create it once and keep it — in a `static let` — because the memory layer lives as long as the
/// object; the middleware that reads it is a plain value you may create per call:
///
/// ```swift
/// enum ImagesAPI: HTTPClient {
///     case image(id: String)
///     static let cache = ResponseCache(memoryBudget: 20 * 1024 * 1024,
///                                      directory: FileManager.default.temporaryDirectory.appendingPathComponent("images"),
///                                      diskBudget: 200 * 1024 * 1024)
///     var host: String { "https://images.example.com" }
///     var endpoint: String { if case .image(let id) = self { "images/\(segment: id)" } else { "" } }
///     var middlewares: [any HTTPMiddleware] { [CachingMiddleware(cache: Self.cache)] }
/// }
/// ```
///
/// Files on disk are named by a hash of the request's URL (and credential partition, itself a hash)
/// and outlive the object: a new `ResponseCache` on the same directory (after a relaunch) answers
/// from them — for requests without credentials. An answer to a request with credentials is stored
/// under a keyed hash of them whose key lives in this object's memory only (see
/// ``CachingMiddleware``), so no other object, and no later process, can find it: after a relaunch
/// such requests go to the server again, and their old files are evicted by the disk budget like any
/// unused entry (``removeAll()`` deletes them at once, for a sign-out). Keep one object per
/// directory in a process, or two would count the same files against two budgets. The disk is a
/// best-effort layer: a file that cannot be written or read is skipped, never an error for the call.
/// The files hold the request URL (query included, like `URLCache`'s database, except the API key
/// an ``AuthorizationMiddleware`` put in it) and the response
/// without `Set-Cookie`: choose a directory only the app can read, such as its caches directory.
public final class ResponseCache: Sendable {
    /// The cache used by every ``CachingMiddleware`` created without one: memory only, 10 MiB.
    public static let shared = ResponseCache()

    /// The most bytes (bodies and headers) kept in memory.
    public let memoryBudget: Int
    /// Where responses are also written, or `nil` for memory only.
    public let directory: URL?
    /// The most bytes kept in ``directory``.
    public let diskBudget: Int

    let now: @Sendable () -> Date
    /// Keeps each credential's answers apart, under a secret that never leaves this object.
    private let partition = CredentialPartition()
    private let memory = Locked(MemoryLayer())
    private let disk: Locked<DiskLayer>?

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - memoryBudget: the most bytes kept in memory; 10 MiB by default. A response larger than
    ///     the budget is kept on disk only, if there is a disk layer.
    ///   - directory: a directory of its own for the disk layer (created if missing), or `nil`.
    ///   - diskBudget: the most bytes kept in `directory`; 100 MiB by default.
    public convenience init(memoryBudget: Int = 10 * 1024 * 1024, directory: URL? = nil, diskBudget: Int = 100 * 1024 * 1024) {
        self.init(memoryBudget: memoryBudget, directory: directory, diskBudget: diskBudget, now: { Date() })
    }

    /// A cache reading the time from `now`, so tests can let responses age without waiting.
    init(memoryBudget: Int, directory: URL?, diskBudget: Int, now: @escaping @Sendable () -> Date) {
        self.memoryBudget = max(0, memoryBudget)
        self.directory = directory
        self.diskBudget = max(0, diskBudget)
        self.now = now
        disk = directory.map { Locked(DiskLayer(directory: $0)) }
    }

    /// Bytes held in memory now.
    public var memoryUsage: Int {
        memory.withLock { $0.total }
    }

    /// Bytes held in ``directory`` now (as this object counts them).
    public var diskUsage: Int {
        disk?.withLock { $0.loadedIndex().values.reduce(0) { $0 + $1.size } } ?? 0
    }

    /// Forgets every stored response, in memory and on disk.
    public func removeAll() {
        memory.withLock { $0 = MemoryLayer() }
        disk?.withLock { $0.removeAll() }
    }

    /// Whether a response for `url` (a GET without credentials) is stored, in memory or on disk.
    public func contains(_ url: URL) -> Bool {
        let key = Self.key(for: url, partition: "")
        if memory.withLock({ $0.entries[key] != nil }) { return true }
        return disk?.withLock { $0.loadedIndex()[DiskLayer.fileName(for: key)] != nil } ?? false
    }

    /// `"GET <absolute URL>"`, followed by a space and the credential partition when there is one.
    /// The partition is a keyed hash, never a credential value, and the URL has no space of its own
    /// (`absoluteString` is percent-encoded), so the two parts cannot run into each other.
    static func key(for url: URL, partition: String) -> String {
        "GET " + url.absoluteString + (partition.isEmpty ? "" : " " + partition)
    }

    /// The key `request` is stored under: its URL and its credential partition, counting the headers
    /// in `credentialHeaders` as credentials besides ``SensitiveHeaders/credentials``, and the query
    /// items in `credentialQueryItems`, which are taken out of the URL so that no key, file name or
    /// file holds the secret.
    func key(for request: OutgoingRequest, credentialHeaders: Set<String>, credentialQueryItems: Set<String> = []) -> String {
        let (url, queryCredentials) = CredentialPartition.splitCredentials(of: request.url, queryItems: credentialQueryItems)
        return Self.key(for: url, partition: partition.key(for: request, extra: credentialHeaders, queryCredentials: queryCredentials))
    }

    /// The entry stored for `key`, from memory or else from disk (then kept in memory too).
    func entry(for key: String) -> CachedResponse? {
        if let entry = memory.withLock({ $0.use(key) }) { return entry }
        guard let entry = disk?.withLock({ $0.read(key, at: now()) }) else { return nil }
        memory.withLock { $0.insert(entry, budget: memoryBudget) }
        return entry
    }

    func store(_ entry: CachedResponse) {
        memory.withLock { $0.insert(entry, budget: memoryBudget) }
        let budget = diskBudget
        let time = now()
        disk?.withLock { $0.write(entry, budget: budget, at: time) }
    }

    func remove(_ key: String) {
        memory.withLock { $0.remove(key) }
        disk?.withLock { $0.remove(key) }
    }
}

/// Entries in memory with a use counter, for least-recently-used eviction.
private struct MemoryLayer {
    var entries: [String: (entry: CachedResponse, lastUse: UInt64)] = [:]
    var total = 0
    var clock: UInt64 = 0

    mutating func use(_ key: String) -> CachedResponse? {
        guard let found = entries[key] else { return nil }
        clock += 1
        entries[key] = (found.entry, clock)
        return found.entry
    }

    mutating func insert(_ entry: CachedResponse, budget: Int) {
        remove(entry.key)
        guard entry.cost <= budget else { return }
        clock += 1
        entries[entry.key] = (entry, clock)
        total += entry.cost
        while total > budget, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            remove(oldest)
        }
    }

    mutating func remove(_ key: String) {
        if let removed = entries.removeValue(forKey: key) { total -= removed.entry.cost }
    }
}

/// Entries as files: a 4-byte big-endian length, the JSON metadata, then the body.
private struct DiskLayer {
    let directory: URL
    /// File name → size and last use, read from the directory on first use.
    private var index: [String: (size: Int, lastUse: Date)]?

    init(directory: URL) {
        self.directory = directory
    }

    static func fileName(for key: String) -> String {
        // 64-bit FNV-1a: stable across runs and platforms; the key inside the file settles collisions.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits + ".response"
    }

    mutating func loadedIndex() -> [String: (size: Int, lastUse: Date)] {
        if let index { return index }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var found: [String: (size: Int, lastUse: Date)] = [:]
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
        for file in files where file.pathExtension == "response" {
            let values = try? file.resourceValues(forKeys: Set(keys))
            found[file.lastPathComponent] = (values?.fileSize ?? 0, values?.contentModificationDate ?? .distantPast)
        }
        index = found
        return found
    }

    mutating func read(_ key: String, at now: Date) -> CachedResponse? {
        let name = Self.fileName(for: key)
        guard loadedIndex()[name] != nil else { return nil }
        let file = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: file), data.count >= 4 else { return nil }
        let length = data.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard data.count >= 4 + length,
            var entry = try? JSONDecoder().decode(CachedResponse.self, from: data.subdata(in: 4..<(4 + length))),
            entry.key == key
        else { return nil }
        entry.body = data.subdata(in: (4 + length)..<data.count)
        index?[name]?.lastUse = now
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: file.path)
        return entry
    }

    mutating func write(_ entry: CachedResponse, budget: Int, at now: Date) {
        remove(entry.key)
        guard let metadata = try? JSONEncoder().encode(entry) else { return }
        let length = UInt32(clamping: metadata.count)
        var data = Data([UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        data.append(metadata)
        data.append(entry.body)
        guard data.count <= budget else { return }
        let name = Self.fileName(for: entry.key)
        _ = loadedIndex()
        guard (try? data.write(to: directory.appendingPathComponent(name), options: .atomic)) != nil else { return }
        index?[name] = (data.count, now)
        var total = index?.values.reduce(0) { $0 + $1.size } ?? 0
        while total > budget, let oldest = index?.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(oldest.key))
            index?[oldest.key] = nil
            total -= oldest.value.size
        }
    }

    mutating func remove(_ key: String) {
        let name = Self.fileName(for: key)
        guard loadedIndex()[name] != nil else { return }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        index?[name] = nil
    }

    mutating func removeAll() {
        for name in loadedIndex().keys {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        index = [:]
    }
}
