/// Undoes URLSession's joining of repeated `Set-Cookie` fields.
///
/// `HTTPURLResponse` keeps one value per name, so two `Set-Cookie` fields reach the transport joined
/// by a comma and a space: `a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=2`. The join cannot be
/// undone exactly, since a cookie's value and attributes may hold commas too (RFC 6265, section 5.2
/// keeps them: `prefs=lang=en,theme=dark` is one cookie). So a comma separates two cookies only when
/// a space follows it, as the join writes, and then a new `name=` pair: a comma a server wrote inside
/// a value or a path (`Path=/a,b=c`) has no space after it, and the date of `Expires` has a space
/// but no `=`. A value holding ", x=" still reads as two cookies; no reading of the joined text can
/// tell, and transports that keep fields apart (AsyncHTTPClient's) never join them.
enum SetCookieValues {
    /// The cookies in `joined`, each as its server sent it (surrounding spaces removed).
    static func split(_ joined: String) -> [String] {
        let bytes = Array(joined.utf8)
        var cookies: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ","), index + 1 < bytes.count,
                bytes[index + 1] == UInt8(ascii: " ") || bytes[index + 1] == UInt8(ascii: "\t"),
                startsCookie(bytes, at: index + 1)
            {
                cookies.append(trimmed(bytes[start..<index]))
                start = index + 1
            }
            index += 1
        }
        cookies.append(trimmed(bytes[start..<bytes.count]))
        return cookies.filter { !$0.isEmpty }
    }

    /// Whether `bytes` from `index` (after optional spaces) read `token=`.
    private static func startsCookie(_ bytes: [UInt8], at index: Int) -> Bool {
        var position = index
        while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\t") {
            position += 1
        }
        let nameStart = position
        while position < bytes.count, RequestChecks.isTokenByte(bytes[position]) { position += 1 }
        return position > nameStart && position < bytes.count && bytes[position] == UInt8(ascii: "=")
    }

    private static func trimmed(_ slice: ArraySlice<UInt8>) -> String {
        var slice = slice
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice = slice.dropFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }
}
