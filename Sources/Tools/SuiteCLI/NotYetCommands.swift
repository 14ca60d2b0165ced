import ArgumentParser

/// Groups whose apps are not built yet. They say so honestly instead of printing fake output.
protocol NotYetBuilt: ParsableCommand {}

extension NotYetBuilt {
    func run() throws {
        throw CLIError.failed("'suite \(Self.configuration.commandName ?? "")' is not built yet in this version; see README for what is available")
    }
}

struct PlacesCommand: NotYetBuilt {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Places near you that are good for working, rated by you (not built yet).")
}
