import Testing

@testable import EndpointRouter

/// Every event in every state of ``CurlDecodingState``, as a table, and the plan a response head
/// makes: no decoder, no libcurl, no network.
struct CurlDecodingStateTests {
    typealias Machine = CurlDecodingState

    static let states: [String: Machine.State] = [
        "refusing": .refusing("compress"), "idle": .idle, "holding": .holding, "draining": .draining, "failed": .failed,
        "finished": .finished,
    ]

    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case piece, emptyPiece, ranEmptyEnded, ranEmptyOpen, ranHolding, ranCorrupt, ranRefused, transferEnded, room
        var testDescription: String { rawValue }

        func apply(to machine: inout Machine) -> Machine.Action {
            switch self {
            case .piece: machine.piece(count: 100)
            case .emptyPiece: machine.piece(count: 0)
            case .ranEmptyEnded: machine.ran(.empty(ended: true))
            case .ranEmptyOpen: machine.ran(.empty(ended: false))
            case .ranHolding: machine.ran(.holding)
            case .ranCorrupt: machine.ran(.corrupt("bad"))
            case .ranRefused: machine.ran(.refused)
            case .transferEnded: machine.transferEnded()
            case .room: machine.room()
            }
        }
    }

    /// `(state, event) → (next state, action)` for a machine that has seen no input yet. Pairs not
    /// listed leave the state as it is and do nothing.
    static let table: [String: (String, Machine.Action)] = [
        "refusing/piece": ("failed", .fail(.unsupported("compress"))),
        // An empty body with a coding the transport cannot decode is a whole, empty body.
        "refusing/transferEnded": ("finished", .complete),
        "idle/piece": ("idle", .decode),
        "idle/emptyPiece": ("idle", .decode),
        "idle/ranEmptyEnded": ("idle", .none),
        "idle/ranEmptyOpen": ("idle", .none),
        "idle/ranHolding": ("holding", .none),
        "idle/ranCorrupt": ("failed", .fail(.corrupt("bad"))),
        "idle/ranRefused": ("failed", .abort),
        // No input came: nothing was cut short.
        "idle/transferEnded": ("finished", .complete),
        "holding/piece": ("holding", .drain),
        "holding/emptyPiece": ("holding", .drain),
        "holding/ranEmptyEnded": ("idle", .none),
        "holding/ranEmptyOpen": ("idle", .none),
        "holding/ranHolding": ("holding", .none),
        "holding/ranCorrupt": ("failed", .fail(.corrupt("bad"))),
        "holding/ranRefused": ("failed", .abort),
        "holding/transferEnded": ("draining", .wait),
        "holding/room": ("holding", .drain),
        "draining/piece": ("draining", .abort),
        "draining/emptyPiece": ("draining", .abort),
        "draining/ranEmptyEnded": ("finished", .complete),
        "draining/ranEmptyOpen": ("finished", .complete),
        "draining/ranHolding": ("draining", .none),
        "draining/ranCorrupt": ("failed", .fail(.corrupt("bad"))),
        "draining/ranRefused": ("failed", .abort),
        "draining/transferEnded": ("draining", .wait),
        "draining/room": ("draining", .drain),
        "failed/piece": ("failed", .abort),
        "failed/emptyPiece": ("failed", .abort),
        "finished/piece": ("finished", .abort),
        "finished/emptyPiece": ("finished", .abort),
        // The drained completion comes back through libcurl's path: it goes on.
        "finished/transferEnded": ("finished", .complete),
    ]

    static func name(_ state: Machine.State) -> String {
        states.first { $0.value == state }?.key ?? "\(state)"
    }

    @Test(arguments: Array(states.keys).sorted(), Event.allCases)
    func transition(_ stateName: String, _ event: Event) throws {
        var machine = Machine(try #require(Self.states[stateName]))
        let action = event.apply(to: &machine)
        let expected = Self.table["\(stateName)/\(event.rawValue)"] ?? (stateName, .none)
        #expect(Self.name(machine.state) == expected.0, "\(stateName)/\(event)")
        #expect(action == expected.1, "\(stateName)/\(event)")
    }

    /// Once input came, the end of the transfer needs the end of the compressed stream.
    @Test func aStreamCutShortFailsAtTheEndOfTheTransfer() {
        var open = Machine(.idle)
        #expect(open.piece(count: 10) == .decode)
        #expect(open.ran(.empty(ended: false)) == .none)
        #expect(open.transferEnded() == .fail(.truncated))
        #expect(open.state == .failed)

        var whole = Machine(.idle)
        _ = whole.piece(count: 10)
        _ = whole.ran(.empty(ended: true))
        #expect(whole.transferEnded() == .complete)

        // Held bytes go out first; then the stream must have ended.
        var held = Machine(.idle)
        _ = held.piece(count: 10)
        #expect(held.ran(.holding) == .none)
        #expect(held.transferEnded() == .wait)
        #expect(held.room() == .drain)
        #expect(held.ran(.holding) == .none)
        #expect(held.ran(.empty(ended: false)) == .fail(.truncated))
    }

    /// A piece that finds the decoders holding bytes drains them first, then goes in.
    @Test func aPieceAfterHeldBytesDrainsThenDecodes() {
        var machine = Machine(.holding)
        #expect(machine.piece(count: 5) == .drain)
        #expect(machine.ran(.empty(ended: false)) == .none)
        #expect(machine.piece(count: 5) == .decode)
    }

    static let all = Set(Machine.Coding.allCases)

    @Test(arguments: [
        (RequestMethod.get, 200, ["gzip"], Machine.Plan.decode([.gzip])),
        (.get, 200, ["x-gzip"], .decode([.gzip])),
        (.get, 200, ["gzip, br"], .decode([.brotli, .gzip])),
        (.get, 200, ["deflate", "zstd"], .decode([.zstd, .deflate])),
        (.get, 200, ["identity"], .none),
        (.get, 200, [" Identity , GZIP "], .decode([.gzip])),
        (.get, 200, [], .none),
        (.get, 200, [""], .none),
        (.get, 200, ["compress"], .refuse("compress")),
        (.get, 200, ["gzip, snappy"], .refuse("snappy")),
        (.head, 200, ["gzip"], .none),
        (.get, 204, ["gzip"], .none),
        (.get, 304, ["gzip"], .none),
        (.post, 404, ["br"], .decode([.brotli])),
        (.get, 200, ["gzip, gzip, gzip, gzip, gzip, gzip"], .refuse("gzip, gzip, gzip, gzip, gzip, gzip")),
    ])
    func plan(_ method: RequestMethod, _ status: Int, _ encoding: [String], _ expected: Machine.Plan) {
        #expect(
            Machine.plan(method: method, status: status, contentEncoding: encoding, decompresses: true, available: Self.all) == expected)
    }

    /// Off, nothing is decoded; a coding whose library did not load is refused like an unknown one.
    @Test func decompressionOffOrALibraryMissing() {
        #expect(Machine.plan(method: .get, status: 200, contentEncoding: ["gzip"], decompresses: false, available: Self.all) == .none)
        let noZstd = Self.all.subtracting([.zstd])
        #expect(
            Machine.plan(method: .get, status: 200, contentEncoding: ["zstd"], decompresses: true, available: noZstd) == .refuse("zstd"))
    }

    /// The caller's errors are `.cannotDecodeContentData` with a sentence a person can act on.
    @Test func failuresReadAsTypedErrors() {
        let corrupt = Machine.Failure.corrupt("invalid block type").error(decodedBytes: 12, offered: "gzip", url: nil)
        guard case .transport(let error) = corrupt else {
            Issue.record("\(corrupt)")
            return
        }
        #expect(error.code == .cannotDecodeContentData)
        #expect(error.localizedDescription.contains("corrupt and could not be decompressed after 12 bytes (invalid block type)"))
        let unsupported = Machine.Failure.unsupported("compress").error(decodedBytes: 0, offered: "gzip, br", url: nil)
        guard case .transport(let other) = unsupported else {
            Issue.record("\(unsupported)")
            return
        }
        #expect(other.code == .cannotDecodeContentData)
        #expect(other.localizedDescription.contains("`compress` is not one this transport can decode (it asks for gzip, br)"))
    }
}
