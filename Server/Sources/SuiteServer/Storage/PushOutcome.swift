/// What a push did.
package struct PushOutcome: Sendable, Hashable {
    /// The account's epoch.
    package var epoch: String
    /// The log's head after the push.
    package var head: Int64
    /// How many operations were new and stored.
    package var stored: Int

    /// Creates an outcome.
    package init(epoch: String, head: Int64, stored: Int) {
        self.epoch = epoch
        self.head = head
        self.stored = stored
    }
}
