import ArgumentParser
import Foundation
import SuiteServer
import Testing

/// Every option of serve, invite and compact has an environment variable, and the command line
/// wins over it.
@Suite("Environment options")
struct EnvironmentOptionsTests {
    static func optionNames(_ help: String) -> Set<String> {
        let pattern = /--([a-z][a-z-]*)/
        return Set(help.matches(of: pattern).map { String($0.1) }).subtracting(["help", "version"])
    }

    @Test(arguments: [("serve", ServeCommand.helpMessage()), ("invite", InviteCommand.helpMessage()), ("compact", CompactCommand.helpMessage())])
    func everyOptionHasAVariable(subcommand: String, help: String) {
        let declared = Set((EnvironmentOptions.bySubcommand[subcommand] ?? []).map(\.name))
        // The options part of the help only (the overview names the variables and their options).
        let options = help.components(separatedBy: "OPTIONS:").last ?? help
        #expect(Self.optionNames(options) == declared)
        for option in EnvironmentOptions.bySubcommand[subcommand] ?? [] {
            #expect(help.contains(option.variable), "\(subcommand) --help does not name \(option.variable)")
        }
    }

    @Test func theCommandLineWins() {
        let environment = ["SUITE_SERVER_LISTEN": "0.0.0.0:1", "SUITE_SERVER_QUOTA_MB": "5", "SUITE_SERVER_BEHIND_PROXY": "yes", "SUITE_SERVER_DAYS": "3"]
        #expect(EnvironmentOptions.apply(to: ["serve", "--listen", "127.0.0.1:0"], environment: environment)
                == ["serve", "--listen", "127.0.0.1:0", "--quota-mb", "5", "--behind-proxy"])
        #expect(EnvironmentOptions.apply(to: ["serve", "--quota-mb=7"], environment: ["SUITE_SERVER_QUOTA_MB": "5", "SUITE_SERVER_BEHIND_PROXY": "0"])
                == ["serve", "--quota-mb=7"])
        #expect(EnvironmentOptions.apply(to: ["invite"], environment: environment) == ["invite", "--days", "3"])
        #expect(EnvironmentOptions.apply(to: ["accounts", "list"], environment: environment) == ["accounts", "list"])
    }

    @Test func theExecutableReadsThem() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try await ServerBinaryTests.run(["invite"], environment: ["SUITE_SERVER_DATA_DIR": folder.path])
        #expect(made.status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("server.sqlite").path))
        let bad = try await ServerBinaryTests.run(["invite", "--data-dir", folder.path], environment: ["SUITE_SERVER_DAYS": "0"])
        #expect(bad.status == 64)
        let refused = try await ServerBinaryTests.run(["serve", "--data-dir", folder.path], environment: ["SUITE_SERVER_LISTEN": "0.0.0.0:0"])
        #expect(refused.status == 64 && refused.stderr.contains("plain HTTP"))
    }
}
