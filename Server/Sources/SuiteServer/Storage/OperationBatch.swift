import SuiteSyncProtocol

/// Helpers both storages use to prepare a push.
package enum OperationBatch {
    /// The operations with each id kept once, at its first occurrence, in order.
    ///
    /// - Parameter operations: The pushed operations.
    /// - Returns: The operations without repeated ids.
    package static func firstOccurrences(_ operations: [SyncEnvelope]) -> [SyncEnvelope] {
        var seen = Set<String>()
        return operations.filter { seen.insert($0.id).inserted }
    }
}
