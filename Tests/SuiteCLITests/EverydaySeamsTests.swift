import Foundation
import Testing
@testable import SuiteCLI

/// Words a person reads in sync: a device's default name, whose favourites are published.
@Suite struct SyncWordingTests {
    @Test func aDeviceIsNamedByItsUserAndItsMachine() {
        #expect(AccountOptions.defaultDeviceName(user: "ada", host: "vm") == "ada on vm")
        #expect(AccountOptions.defaultDeviceName(user: nil, host: "vm") == "vm")
        #expect(AccountOptions.defaultDeviceName(user: "", host: "") == "this machine")
    }

    @Test func publishingTheDefaultUsersFavouritesSaysWhatThatUserIs() {
        #expect(SyncCommand.Publish.whoseFavourites("ada") == "the favourites of ada")
        let unnamed = SyncCommand.Publish.whoseFavourites("default")
        #expect(!unnamed.contains("favourites of default"))
        #expect(unnamed.contains("without a user name"))
    }
}
