import ArgumentParser
import Foundation
import SuiteSync
import SuiteSyncProtocol

extension SyncCommand {
    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the account's password: the current one and the new one on standard input, one per line.",
            discussion: """
                The data key stays (nothing is encrypted again); the server keeps the new password's \
                verifier and the key wrapped by it. Every signed-in device keeps syncing; new devices \
                log in with the new password. Exits 1 for a wrong current password, 65 for a missing \
                line or a new password shorter than 8 characters (nothing changes on the server).

                Example:
                  printf '%s\\n%s\\n' "$OLD" "$NEW" | suite sync password --stdin
                """)

        @OptionGroup var options: TextOptions
        @Flag(help: "Read the current and the new password from standard input, one per line (required: passwords are never arguments).") var stdin = false

        func validate() throws {
            guard stdin else { throw ValidationError("pass the current and the new password on standard input with --stdin") }
        }

        func run() async throws {
            let account = try SyncCommand.requireAccount(options)
            let lines = try KeyLines.read(["the current password", "the new password"])
            try await SyncCommand.client(folder: try options.storeFolder()).changePassword(current: lines[0], new: lines[1])
            print("Changed the password of \(account.account). Devices signed in keep syncing; new devices log in with the new password.")
        }
    }

    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a new password with the recovery key and log this store folder in: the key and the new password on standard input, one per line.",
            discussion: """
                The old password stops working; devices signed in stay. Exits 1 for a wrong account \
                or recovery key, 65 for a missing line, text that is not a recovery key or a new \
                password shorter than 8 characters (nothing changes on the server).

                Example:
                  printf '%s\\n%s\\n' "$RECOVERY_KEY" "$NEW" | suite sync recover --server https://sync.example.org --account ada --stdin
                """)

        @OptionGroup var options: TextOptions
        @Option(help: ArgumentHelp("The server's URL, as 'suite-server serve' prints it.", valueName: "url")) var server: String
        @Option(help: ArgumentHelp("The account name.", valueName: "name")) var account: String
        @Flag(help: "Read the recovery key and the new password from standard input, one per line (required).") var stdin = false
        @Option(help: ArgumentHelp("This device's name in 'suite sync devices' (default: 'LOGIN on HOST').", valueName: "name")) var device: String?

        func validate() throws {
            guard stdin else { throw ValidationError("pass the recovery key and the new password on standard input with --stdin") }
            try AccountOptions.validate(account: account)
        }

        func run() async throws {
            let folder = try options.storeFolder()
            let lines = try KeyLines.read(["the recovery key", "the new password"])
            let url = try AccountOptions.serverURL(server)
            let device = try await SyncCommand.client(folder: folder).recover(
                server: url, account: account, recoveryKey: lines[0], newPassword: lines[1], device: AccountOptions.deviceName(device))
            print("Set a new password for \(account) on \(url.absoluteString); the old one no longer works. This device is \(device).")
            print("Run 'suite sync' to bring the account's data here.")
        }
    }

    struct DeleteAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-account",
            abstract: "Delete the account and everything of it from the server (the password on standard input); the stores on devices stay.",
            discussion: """
                Removes the account's devices, synced history, published favourites and ratings and \
                shared lists from the server, and stops this store folder syncing. Cannot be undone. \
                Exits 1 for a wrong password (nothing is deleted).

                Example:
                  printf %s "$PASSWORD" | suite sync delete-account --stdin --yes
                """)

        @OptionGroup var options: TextOptions
        @Flag(help: "Read the password from standard input (required).") var stdin = false
        @Flag(help: "Confirm: the account cannot be brought back.") var yes = false

        func validate() throws {
            guard stdin else { throw ValidationError("pass the password on standard input with --stdin") }
            guard yes else { throw ValidationError("deleting the account cannot be undone: pass --yes to confirm") }
        }

        func run() async throws {
            let folder = try options.storeFolder()
            let account = try SyncCommand.requireAccount(options)
            let password = try KeyLines.read(["the password"])[0]
            try await SyncCommand.client(folder: folder).deleteAccount(password: password)
            print("Deleted the account \(account.account) and everything of it from \(account.server.absoluteString); the data in this store folder stays.")
        }
    }
}

/// Secrets on standard input, one per line.
enum KeyLines {
    /// The lines named, in order (line ends `\n` or `\r\n`; nothing else is trimmed).
    ///
    /// - Throws: ``CLIError/badInput(_:)`` naming the first line missing or empty, or for lines beyond.
    static func read(_ names: [String]) throws -> [String] {
        // "\r\n" is one Character in Swift.
        var lines = try Terminal.readAllStandardInput().split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init)
        while lines.last?.isEmpty == true, lines.count > names.count { lines.removeLast() }
        for (index, name) in names.enumerated() where index >= lines.count || lines[index].isEmpty {
            throw CLIError.badInput("line \(index + 1) of standard input (\(name)) is missing or empty; expected \(names.joined(separator: ", then ")), one per line")
        }
        guard lines.count == names.count else {
            throw CLIError.badInput("standard input has more than \(names.count) line\(names.count == 1 ? "" : "s"); expected \(names.joined(separator: ", then ")), one per line")
        }
        return lines
    }
}
