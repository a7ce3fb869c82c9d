import Foundation

// The values `StreamSinkState` holds and answers with, apart from the machine itself so that each
// file stays short enough to read whole.
extension StreamSinkState {
    /// Pieces received and not yet taken, in order.
    struct Buffer {
        private var pieces: [Data] = []
        private var first = 0
        /// Bytes held.
        private(set) var bytes = 0

        var isEmpty: Bool { first == pieces.count }
        /// Slots in the queue, taken ones included: what it holds on to (for tests).
        var slots: Int { pieces.count }

        mutating func append(_ piece: Data) {
            pieces.append(piece)
            bytes += piece.count
        }

        mutating func take() -> Data {
            // The slot is emptied as the piece is taken, and taken slots are dropped once they are
            // half the queue: a producer that stays ahead never lets the queue drain, and taken
            // pieces kept in it grew memory by every byte the consumer read.
            let piece = pieces[first]
            pieces[first] = Data()
            first += 1
            if first == pieces.count {
                pieces.removeAll(keepingCapacity: true)
                first = 0
            } else if first >= 64, first * 2 >= pieces.count {
                pieces.removeFirst(first)
                first = 0
            }
            bytes -= piece.count
            return piece
        }
    }

    /// Who waits while the body flows: never both, since one waits on an empty buffer and the
    /// other on a full one.
    enum Waiting {
        case nobody
        /// The consumer, for the next piece.
        case consumer(Waiter)
        /// The transport, for room in the buffer.
        case transport(Waiter)

        var waiter: Waiter? {
            switch self {
            case .nobody: nil
            case .consumer(let waiter), .transport(let waiter): waiter
            }
        }
    }

    /// The exchange's task and the idle and total timeout's watchdog, while the stream runs.
    struct Tasks {
        var exchange: Work?
        var watchdog: Work?

        var all: [Work] { [exchange, watchdog].compactMap { $0 } }
    }

    /// What the sink does after an event, outside its lock.
    enum Action {
        case none
        /// Resumes the side that waited.
        case resume(Waiter)
        /// Throws `error` to the transport's call.
        case refuse(HTTPClientError)
        /// The stream ended: resumes the side that waited, cancels the tasks, then throws `refusing`
        /// to the transport's call, if set.
        case end(resuming: Waiter?, cancelling: [Work], refusing: HTTPClientError?)
        /// Cancels a task attached after the end.
        case cancel(Work)
    }

    /// What the consumer gets when it asks for the next piece.
    enum Next {
        /// A piece; `resuming` is the transport, waiting for the room this piece made.
        case piece(Data, resuming: Waiter?)
        /// The body ended.
        case end
        case failure(HTTPClientError)
        /// Nothing yet: the consumer parks.
        case wait
    }

    /// What the transport gets when it asks for room.
    enum Demand: Equatable {
        case room
        /// The buffer is full: the transport parks.
        case wait
        case failure(HTTPClientError)
    }
}
