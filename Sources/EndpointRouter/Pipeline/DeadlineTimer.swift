import Dispatch
import Foundation

/// One timer for every call's deadline in the process.
///
/// A dispatch timer source per call costs two wake-ups of libdispatch's manager thread (arming and
/// cancelling it): profiled at 64 calls in flight on AsyncHTTPClient, that was the library's largest
/// cost after decoding. Here a call's deadline is an entry in a heap under a lock, and the single
/// dispatch timer is re-armed only when a deadline comes before the one it is armed for — which
/// calls with the same timeout, made one after another, never do.
///
/// A cancelled entry leaves its action at once (the call's state is freed) and its heap slot the
/// next time the heap is compacted, which happens when cancelled slots outnumber live ones, so
/// cancelled slots cannot pile up (20,000 scheduled and cancelled leave fewer than 2,000).
final class DeadlineTimer: Sendable {
    /// The timer every call uses.
    static let shared = DeadlineTimer()

    /// Identifies a scheduled action, to cancel it.
    struct Token: Sendable {
        fileprivate let id: UInt64
    }

    private struct Slot {
        let instant: ContinuousClock.Instant
        let id: UInt64
    }

    private struct State {
        /// Only touched under the lock, like the rest.
        let source: any DispatchSourceTimer
        var heap: [Slot] = []
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var lastID: UInt64 = 0
        /// When the dispatch timer fires next; `nil` while it is idle.
        var armedFor: ContinuousClock.Instant?
    }

    private let state: Locked<State>

    private init() {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "EndpointRouter.DeadlineTimer"))
        source.schedule(deadline: .distantFuture)
        state = Locked(State(source: source))
        source.setEventHandler { [unowned self] in fire() }
        // Resumed once and never cancelled: the timer lives as long as the process.
        source.resume()
    }

    /// Runs `action` once `instant` has passed, unless cancelled first.
    func schedule(at instant: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Token {
        state.withLock { state in
            state.lastID &+= 1
            let id = state.lastID
            state.actions[id] = action
            Self.push(Slot(instant: instant, id: id), onto: &state.heap)
            if state.armedFor.map({ instant < $0 }) ?? true {
                Self.arm(for: instant, in: &state)
            }
            return Token(id: id)
        }
    }

    /// Drops the action of `token`; it never runs after this returns (unless it already began).
    func cancel(_ token: Token) {
        state.withLock { state in
            guard state.actions.removeValue(forKey: token.id) != nil else { return }
            if state.heap.count > 64 && state.heap.count > 2 * state.actions.count {
                Self.compact(&state)
            }
        }
    }

    /// Actions scheduled and not yet run or cancelled (for tests).
    var pendingCount: Int { state.withLock { $0.actions.count } }

    /// Slots in the heap, live or cancelled (for tests of its bound).
    var heapCount: Int { state.withLock { $0.heap.count } }

    private func fire() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            while let first = state.heap.first {
                if let action = state.actions[first.id] {
                    guard first.instant <= now else { break }
                    state.actions[first.id] = nil
                    due.append(action)
                }
                Self.popFirst(from: &state.heap)
            }
            state.armedFor = nil
            if let next = state.heap.first { Self.arm(for: next.instant, in: &state) }
            return due
        }
        for action in due { action() }
    }

    /// Called under the lock, so `armedFor` always says what the source will do.
    private static func arm(for instant: ContinuousClock.Instant, in state: inout State) {
        state.armedFor = instant
        let remaining = instant - ContinuousClock.now
        guard remaining > .zero else {
            state.source.schedule(deadline: .now())
            return
        }
        let (seconds, attoseconds) = remaining.components
        let nanoseconds = Int(min(seconds, Int64(Deadline.maximumSeconds))) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        state.source.schedule(deadline: .now() + .nanoseconds(nanoseconds))
    }

    private static func compact(_ state: inout State) {
        // Sorted by instant, the live slots are a heap as they stand.
        let actions = state.actions
        state.heap = state.heap.filter { actions[$0.id] != nil }.sorted { $0.instant < $1.instant }
    }

    private static func push(_ slot: Slot, onto heap: inout [Slot]) {
        heap.append(slot)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].instant < heap[parent].instant else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popFirst(from heap: inout [Slot]) {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].instant < heap[smallest].instant { smallest = left }
            if right < heap.count && heap[right].instant < heap[smallest].instant { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
