/// The content types the library writes.
enum ContentType {
    static let json = "application/json"
    static let form = "application/x-www-form-urlencoded; charset=utf-8"
}
