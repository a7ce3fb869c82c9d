/// The statuses an endpoint accepts as success: a range, a closed range, a set or an array of codes.
///
/// ```swift
/// var acceptableStatusCodes: Set<Int> { [200, 201, 304] }
/// // or a range: var acceptableStatusCodes: ClosedRange<Int> { 200...399 }
/// ```
public protocol StatusCodeSet: Sendable {
    /// Whether `statusCode` counts as success.
    func contains(_ statusCode: Int) -> Bool
}

extension Range: StatusCodeSet where Bound == Int {}
extension ClosedRange: StatusCodeSet where Bound == Int {}
extension Set: StatusCodeSet where Element == Int {}
extension Array: StatusCodeSet where Element == Int {}
