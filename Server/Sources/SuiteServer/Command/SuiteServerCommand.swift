import ArgumentParser

/// `suite-server`: the root command holds only configuration.
package struct SuiteServerCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "suite-server",
        abstract: "The Suite sync server: orders and relays the devices' encrypted operations.",
        version: "0.1.0",
        subcommands: [ServeCommand.self])

    package init() {}
}
