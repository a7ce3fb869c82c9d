import Foundation

/// The start of a body as text for a message meant for people, cut so a message stays short.
package enum BodyPreview {
    /// The longest preview, in bytes.
    package static let limit = 200

    /// Up to ``limit`` bytes of `data` as UTF-8 (invalid bytes replaced), with `…` when cut; `""` for none.
    package static func text(of data: Data) -> String {
        guard !data.isEmpty else { return "" }
        return String(decoding: data.prefix(limit), as: UTF8.self) + (data.count > limit ? "…" : "")
    }
}
