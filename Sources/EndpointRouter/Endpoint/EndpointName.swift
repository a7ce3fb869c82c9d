/// The default ``HTTPClient/endpointName``: type and case, read by reflection so that the case's
/// associated values (an id, a token) never end up in logs.
enum EndpointName {
    static func of(_ value: Any) -> String {
        let typeName = String(describing: type(of: value))
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return typeName }
        if let label = mirror.children.first?.label { return typeName + "." + label }
        // A case without associated values prints as its name.
        return typeName + "." + String(describing: value)
    }
}
