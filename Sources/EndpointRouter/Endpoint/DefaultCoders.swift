import Foundation

/// The default ``HTTPClient/decoder`` and ``HTTPClient/encoder``: made once per endpoint type instead
/// of once per call (a coder is an object with options, a lock and a dictionary: several allocations
/// a call, for settings nobody changed).
///
/// Per type rather than one for the process, so that code which mutates the default of one service
/// (which it should not) changes no other service's decoding.
enum DefaultCoders {
    private struct Coders {
        var decoders: [ObjectIdentifier: JSONDecoder] = [:]
        var encoders: [ObjectIdentifier: JSONEncoder] = [:]
    }

    private static let coders = Locked(Coders())

    static func decoder(for type: Any.Type) -> JSONDecoder { coder(\.decoders, for: type, JSONDecoder.init) }

    static func encoder(for type: Any.Type) -> JSONEncoder { coder(\.encoders, for: type, JSONEncoder.init) }

    private static func coder<Coder>(
        _ kind: WritableKeyPath<Coders, [ObjectIdentifier: Coder]>,
        for type: Any.Type,
        _ make: () -> Coder
    ) -> Coder {
        coders.withLock { coders in
            if let coder = coders[keyPath: kind][ObjectIdentifier(type)] { return coder }
            let coder = make()
            coders[keyPath: kind][ObjectIdentifier(type)] = coder
            return coder
        }
    }
}
