/// The default ``HTTPClient/endpointName``: type and case, read by reflection so that the case's
/// associated values (an id, a token) never end up in logs.
///
/// Reflection costs about 1.5 µs a call (a `Mirror`, the payload boxed, the type's name
/// demangled), a tenth of the library's whole cost per call, for a name most calls never read. So
/// a call does not derive it up front: ``forCall(of:)`` keeps a copy of the endpoint value and the
/// name is derived the first time a middleware or transport reads ``CallContext/endpointName``.
/// An endpoint that declares its own name is read at once, as before, on the caller's actor.
enum EndpointName {
    /// The name of `value`'s type and case.
    static func of(_ value: Any) -> String {
        let type = typeName(of: Swift.type(of: value))
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return type }
        if let label = mirror.children.first?.label { return type + "." + label }
        // A case without associated values prints as its name.
        return type + "." + String(describing: value)
    }

    /// The name of `client` for one call: already known when the endpoint declares it, derived
    /// when first read otherwise.
    static func forCall<Client: HTTPClient>(of client: Client) -> CallContext.Name {
        // One storage serves as the hand-over slot now and as the name's memo later: one allocation.
        let derived = DerivedName()
        let name = $deferral.withValue(derived) { client.endpointName }
        // The default implementation handed the value over instead of reflecting on it. If the name
        // was composed from it (an endpoint naming itself after another's default), read it again
        // with nothing deferred, so the composition sees the real name.
        guard derived.holdsValue else { return .known(name) }
        guard name == placeholder else { return .known(client.endpointName) }
        return .derived(derived)
    }

    /// The default ``HTTPClient/endpointName``.
    static func defaultName(of value: Any) -> String {
        if let deferral, deferral.take(value) { return placeholder }
        return of(value)
    }

    /// What the default returns while deferring: never a name anyone writes.
    private static let placeholder = "\u{0}EndpointRouter.deferred"

    /// Set while ``forCall(of:)`` reads a name, for this thread or task only.
    @TaskLocal private static var deferral: DerivedName?

    private static let typeNames = Locked<[ObjectIdentifier: String]>([:])

    /// The type's name, demangled once per type (at most 256 kept, so types made at run time
    /// cannot grow it without bound).
    private static func typeName(of type: Any.Type) -> String {
        let key = ObjectIdentifier(type)
        if let known = typeNames.withLock({ $0[key] }) { return known }
        let name = String(describing: type)
        typeNames.withLock { names in
            if names.count >= 256 { names.removeAll(keepingCapacity: true) }
            names[key] = name
        }
        return name
    }
}

/// A value that is only reflected on, never used: safe to hand to another thread.
struct UncheckedValue: @unchecked Sendable {
    let value: Any
}

/// The name of one call's endpoint, derived once, when first read, from the value the default
/// implementation handed over.
final class DerivedName: StripeLocked, @unchecked Sendable {
    struct State {
        // `Any` is not `Sendable`, but the value is only reflected on (a copy, read-only), never used.
        var value: UncheckedValue?
        var name: String?
    }

    // Safe (`@unchecked Sendable`): only touched under the object's stripe lock (`withLock`).
    var lockedState = State()

    /// Takes `value` to name later; `false` if one was already taken (a second endpoint's default
    /// read during the same read, which then reflects at once).
    fileprivate func take(_ value: Any) -> Bool {
        withLock { state in
            guard state.value == nil, state.name == nil else { return false }
            state.value = UncheckedValue(value: value)
            return true
        }
    }

    fileprivate var holdsValue: Bool { withLock { $0.value != nil } }

    var name: String {
        let (value, known) = withLock { ($0.value, $0.name) }
        if let known { return known }
        // Derived outside the lock: reflection may print the value (`String(describing:)` of a
        // case without associated values), which can run the type's own `description`.
        let derived = value.map { EndpointName.of($0.value) } ?? ""
        // The value is released after the lock: releasing it may run a deinitializer of its own.
        let (name, released) = withLock { state -> (String, UncheckedValue?) in
            if let name = state.name { return (name, nil) }
            defer { state = State(value: nil, name: derived) }
            return (derived, state.value)
        }
        _ = released
        return name
    }
}
