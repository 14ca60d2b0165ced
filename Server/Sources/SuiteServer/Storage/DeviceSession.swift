/// The device (and account) a bearer token belongs to.
package struct DeviceSession: Sendable, Hashable {
    /// The account.
    package var accountID: String
    /// The device.
    package var deviceID: String

    /// Creates a session.
    package init(accountID: String, deviceID: String) {
        self.accountID = accountID
        self.deviceID = deviceID
    }
}
