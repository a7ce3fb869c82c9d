import EndpointRouter

// Stubs and replays answer without a network: a `TaskOverride`'s clock applies to calls on them.

extension StubTransport {
    /// `true`: a stub's exchanges are simulated, so a ``VirtualClock`` given in a `TaskOverride`
    /// applies to calls on it.
    public var isSimulated: Bool { true }
}

extension ReplayTransport {
    /// `true`: a replay's exchanges are simulated, so a ``VirtualClock`` given in a `TaskOverride`
    /// applies to calls on it.
    public var isSimulated: Bool { true }
}
