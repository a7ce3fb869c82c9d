import Foundation

extension Data {
    /// `withUnsafeBytes` that keeps the error type: the standard one rethrows `any Error`, which a
    /// `throws(HTTPClientError)` caller would have to cast back.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(HTTPClientError) -> R) throws(HTTPClientError) -> R {
        try withUnsafeBytes { bytes in Result { () throws(HTTPClientError) in try body(bytes) } }.get()
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` that keeps the error type (see `Data.withBytes`).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(HTTPClientError) -> R) throws(HTTPClientError) -> R {
        try withUnsafeBytes { bytes in Result { () throws(HTTPClientError) in try body(bytes) } }.get()
    }
}
