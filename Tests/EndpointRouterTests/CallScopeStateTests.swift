import Testing

@testable import EndpointRouter

/// Every event of ``CallScopeState`` in every state, without a transfer: a sink or stream that
/// arrives after the end is refused, the stream offered last is the one delivered, every other sink
/// is closed exactly once, and a second end closes nothing.
@Suite("Call scope: every event in every state")
struct CallScopeStateTests {
    final class Stream: Sendable, CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }
        var description: String { name }
    }

    /// A sink: a memory or file sink (no stream), or a stream.
    struct Sink: Equatable, CustomStringConvertible {
        let name: String
        let stream: Stream?
        static func == (left: Sink, right: Sink) -> Bool { left.name == right.name && left.stream === right.stream }
        var description: String { name }
    }

    typealias Scope = CallScopeState<Sink, Stream>

    static let first = Stream("first stream")
    static let second = Stream("second stream")
    static let memory = Sink(name: "memory", stream: nil)
    static let firstSink = Sink(name: "first", stream: first)
    static let secondSink = Sink(name: "second", stream: second)

    enum State: String, CaseIterable, CustomTestStringConvertible {
        case new, withAMemorySink, offeringTheFirstStream, ended
        var testDescription: String { rawValue }

        var scope: Scope {
            var scope = Scope()
            switch self {
            case .new: break
            case .withAMemorySink: _ = scope.sinkMade(memory)
            case .offeringTheFirstStream:
                _ = scope.sinkMade(memory)
                _ = scope.sinkMade(firstSink)
                _ = scope.offered(first)
            case .ended:
                _ = scope.sinkMade(firstSink)
                _ = scope.offered(first)
                _ = scope.ended(stream: \.stream)
            }
            return scope
        }
    }

    @Test(arguments: State.allCases)
    func aSinkIsKeptOnlyWhileTheCallRuns(_ state: State) {
        var scope = state.scope
        let kept = scope.sinkMade(Self.secondSink)
        #expect(kept == (state != .ended))
        let (closing, _) = scope.ended(stream: \.stream)
        #expect(closing.contains(Self.secondSink) == kept, "a kept sink is closed at the end, a refused one never held")
    }

    @Test(arguments: State.allCases)
    func theStreamOfferedLastIsTheOneDelivered(_ state: State) {
        var scope = state.scope
        let offer = scope.offered(Self.second)
        switch state {
        case .new, .withAMemorySink: #expect(offer == .kept(closing: nil))
        case .offeringTheFirstStream: #expect(offer == .kept(closing: Self.first), "the earlier stream is closed")
        case .ended: #expect(offer == .refused)
        }
        let (_, delivered) = scope.ended(stream: \.stream)
        #expect(delivered === (state == .ended ? nil : Self.second))
    }

    @Test(arguments: State.allCases)
    func offeringTheSameStreamAgainClosesNothing(_ state: State) {
        var scope = state.scope
        let offer = scope.offered(Self.first)
        #expect(offer == (state == .ended ? .refused : .kept(closing: nil)))
    }

    /// What the end closes in each state: every sink but the delivered stream's; then nothing.
    @Test(arguments: State.allCases)
    func theEndClosesEverySinkButTheDeliveredOnceAndOnlyOnce(_ state: State) {
        var scope = state.scope
        let (closing, delivered) = scope.ended(stream: \.stream)
        switch state {
        case .new:
            #expect(closing.isEmpty && delivered == nil)
        case .withAMemorySink:
            #expect(closing == [Self.memory] && delivered == nil)
        case .offeringTheFirstStream:
            #expect(closing == [Self.memory], "the delivered stream is the caller's, not closed")
            #expect(delivered === Self.first)
        case .ended:
            #expect(closing.isEmpty && delivered == nil)
        }
        let again = scope.ended(stream: \.stream)
        #expect(again.closing.isEmpty && again.delivered == nil, "a second end closes nothing")
        if case .closed = scope.state {} else { Issue.record("the scope is closed after its end") }
    }

    /// A stream offered, then replaced by a second one (a retry after the head): the first is
    /// closed on the spot, the second delivered, and the first's sink is closed again at the end
    /// only as a sink (its stream was already told).
    @Test func aRetriedStreamReplacesTheFirst() {
        var scope = Scope()
        let firstKept = scope.sinkMade(Self.firstSink)
        let firstOffer = scope.offered(Self.first)
        let secondKept = scope.sinkMade(Self.secondSink)
        let secondOffer = scope.offered(Self.second)
        #expect(firstKept && secondKept)
        #expect(firstOffer == .kept(closing: nil))
        #expect(secondOffer == .kept(closing: Self.first))
        let (closing, delivered) = scope.ended(stream: \.stream)
        #expect(closing == [Self.firstSink])
        #expect(delivered === Self.second)
    }
}
