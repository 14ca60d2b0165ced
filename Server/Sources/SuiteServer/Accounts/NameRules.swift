import SuiteSyncProtocol

/// What account and device names may be.
package enum NameRules {
    /// Whether a name is 1 to ``SyncProtocol/maximumNameLength`` characters with no control
    /// characters.
    ///
    /// - Parameter name: An account or device name.
    /// - Returns: Whether the server accepts it.
    package static func isValid(_ name: String) -> Bool {
        !name.isEmpty
            && name.count <= SyncProtocol.maximumNameLength
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
