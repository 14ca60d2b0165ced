import ArgumentParser
import Foundation

/// The executable's entry point: parses, runs, and maps every error to one line on stderr and
/// an exit code, in one place.
package enum SuiteServerMain {
    /// Runs `suite-server` with arguments.
    ///
    /// - Parameter arguments: The arguments after the program name.
    /// - Returns: The exit code: 0, 64 usage, 69 database unreachable, 74 data folder, 1 refused
    ///   (an unknown account, `accounts delete` without --yes) or any other failure.
    package static func run(_ arguments: [String]) async -> Int32 {
        let arguments = EnvironmentOptions.apply(to: arguments, environment: ProcessInfo.processInfo.environment)
        do {
            var command = try SuiteServerCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let failure as ServerFailure {
            writeError(failure.message)
            return failure.exitCode
        } catch {
            let code = SuiteServerCommand.exitCode(for: error)
            if code == .success {
                FileHandle.standardOutput.write(Data((SuiteServerCommand.fullMessage(for: error) + "\n").utf8))
                return 0
            }
            let message = SuiteServerCommand.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "invalid arguments"
            // The help of the subcommand that was given (`serve`, `accounts delete`), else the root's.
            var path: [String] = []
            var commands = SuiteServerCommand.configuration.subcommands
            for argument in arguments {
                guard let command = commands.first(where: { $0.configuration.commandName == argument }) else { break }
                path.append(argument)
                commands = command.configuration.subcommands
            }
            writeError(message + " (see suite-server \(path.map { "\($0) " }.joined())--help)")
            return code.rawValue
        }
    }

    private static func writeError(_ message: String) {
        FileHandle.standardError.write(Data("suite-server: \(message)\n".utf8))
    }
}
