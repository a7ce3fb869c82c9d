/// The credential stores of one ``TaskOverride``: the substitutions a test asked for, and the copies
/// made of every other store met under it, so that no credential state is shared between overrides.
struct CredentialScope: Sendable {
    /// Substitutes by the identity of the declared store; the declared store is kept alive beside
    /// its replacement so that its identity cannot be reused by another store.
    private var substitutions: [ObjectIdentifier: (declared: CredentialStore, replacement: CredentialStore)] = [:]
    private let copies = Locked<[ObjectIdentifier: (declared: CredentialStore, copy: CredentialStore)]>([:])

    func substituting(_ declared: CredentialStore, with replacement: CredentialStore) -> CredentialScope {
        var scope = self
        scope.substitutions[ObjectIdentifier(declared)] = (declared, replacement)
        return scope
    }

    /// This scope's copies with `inner`'s substitutions added on top of its own.
    func adding(_ inner: CredentialScope) -> CredentialScope {
        var scope = self
        scope.substitutions.merge(inner.substitutions) { _, new in new }
        return scope
    }

    /// The store to use under this scope for `declared`: its substitute, or this scope's copy of it.
    func store(for declared: CredentialStore) -> CredentialStore {
        let id = ObjectIdentifier(declared)
        if let substitution = substitutions[id] { return substitution.replacement }
        // A replacement named again (a service whose middleware already holds the test's store)
        // is used as it is.
        if substitutions.values.contains(where: { $0.replacement === declared }) { return declared }
        return copies.withLock { copies in
            if let existing = copies[id] { return existing.copy }
            // A copy named again (its own `set(_:)` forwarding here) is used as it is.
            if copies.values.contains(where: { $0.copy === declared }) { return declared }
            let copy = declared.isolatedCopy()
            copies[id] = (declared, copy)
            return copy
        }
    }
}
