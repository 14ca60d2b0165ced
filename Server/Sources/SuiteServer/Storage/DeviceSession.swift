/// The device (and account) a bearer token belongs to.
package struct DeviceSession: Sendable, Hashable {
    /// The account.
    package var accountID: String
    /// The device.
    package var deviceID: String
    /// Whether the server's operator disabled the account (`suite-server accounts disable`):
    /// the token is genuine, but ``SyncService/authenticate(token:)`` refuses it.
    package var accountDisabled: Bool

    /// Creates a session.
    package init(accountID: String, deviceID: String, accountDisabled: Bool = false) {
        self.accountID = accountID
        self.deviceID = deviceID
        self.accountDisabled = accountDisabled
    }
}
