/// The sinks one call has opened, and the stream it will hand to its caller, as a state machine:
/// each event returns what to close, which ``CallScope`` closes outside its lock.
///
/// Generic over the sink and the stream so that every transition is tested without a transfer
/// (`CallScopeStateTests`). Once the call has ended the state holds nothing: a sink made or a
/// stream offered after the end is refused, never kept where nobody would close it.
struct CallScopeState<Sink, Stream: AnyObject> {
    enum State {
        /// The call is running: every sink made so far, and the stream offered last, if any.
        case open(sinks: [Sink], deliverable: Stream?)
        /// The call has ended; whatever arrives now is closed at once.
        case closed
    }

    /// What an offered stream means for the streams.
    enum Offer: Equatable {
        /// Kept for the caller; the stream offered before it, if any, is closed.
        case kept(closing: Stream?)
        /// The call has ended: the stream is closed, and the exchange ends with `.cancelled`.
        case refused

        static func == (left: Offer, right: Offer) -> Bool {
            switch (left, right) {
            case (.kept(let a), .kept(let b)): a === b
            case (.refused, .refused): true
            default: false
            }
        }
    }

    private(set) var state = State.open(sinks: [], deliverable: nil)

    /// A sink was made for the next exchange; `false` when the call has ended (refuse it).
    mutating func sinkMade(_ sink: Sink) -> Bool {
        guard case .open(var sinks, let deliverable) = state else { return false }
        // Leave the state for a moment so the array is uniquely referenced and grows in place,
        // rather than copied on every append.
        state = .closed
        sinks.append(sink)
        state = .open(sinks: sinks, deliverable: deliverable)
        return true
    }

    /// A stream's head was accepted: it becomes the one the caller gets if the call succeeds.
    mutating func offered(_ stream: Stream) -> Offer {
        guard case .open(let sinks, let previous) = state else { return .refused }
        state = .open(sinks: sinks, deliverable: stream)
        return .kept(closing: previous === stream ? nil : previous)
    }

    /// The call ended: every sink to close (all but the delivered stream's, found with `stream`),
    /// and the stream now the caller's. A second end closes nothing.
    mutating func ended(stream: (Sink) -> Stream?) -> (closing: [Sink], delivered: Stream?) {
        guard case .open(let sinks, let delivered) = state else { return ([], nil) }
        state = .closed
        // Most calls deliver no stream: every sink is closed, and no second array is made.
        guard let delivered else { return (sinks, nil) }
        let closing = sinks.filter { sink in
            guard let own = stream(sink) else { return true }
            return own !== delivered
        }
        return (closing, delivered)
    }
}
