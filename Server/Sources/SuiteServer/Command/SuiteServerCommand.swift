import ArgumentParser
import SuiteWeb

/// `suite-server`: the root command holds only configuration.
package struct SuiteServerCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "suite-server",
        abstract: "The Suite sync server (serve, invite, accounts, compact, backup, restore, migrate), and the four apps as a local web app (ui).",
        version: "0.1.0",
        subcommands: [ServeCommand.self, InviteCommand.self, AccountsCommand.self, CompactCommand.self, BackupCommand.self, RestoreCommand.self, MigrateCommand.self, UICommand.self])

    package init() {}
}
