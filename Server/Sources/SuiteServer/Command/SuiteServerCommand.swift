import ArgumentParser
import SuiteEnvironment

/// `suite-server`: the root command holds only configuration.
package struct SuiteServerCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "suite-server",
        abstract: "The Suite sync server (serve, invite, accounts, compact, backup, restore, migrate).",
        version: SuiteEnvironment.version,
        subcommands: [ServeCommand.self, InviteCommand.self, AccountsCommand.self, CompactCommand.self, BackupCommand.self, RestoreCommand.self, MigrateCommand.self])

    package init() {}
}
