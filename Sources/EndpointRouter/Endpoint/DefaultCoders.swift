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

    static func decoder(for type: Any.Type) -> JSONDecoder {
        coders.withLock { coders in
            if let decoder = coders.decoders[ObjectIdentifier(type)] { return decoder }
            let decoder = JSONDecoder()
            coders.decoders[ObjectIdentifier(type)] = decoder
            return decoder
        }
    }

    static func encoder(for type: Any.Type) -> JSONEncoder {
        coders.withLock { coders in
            if let encoder = coders.encoders[ObjectIdentifier(type)] { return encoder }
            let encoder = JSONEncoder()
            coders.encoders[ObjectIdentifier(type)] = encoder
            return encoder
        }
    }
}
