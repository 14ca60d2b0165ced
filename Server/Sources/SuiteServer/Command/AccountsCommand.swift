import ArgumentParser
import Foundation
import SuiteEnvironment

/// `suite-server accounts list|disable|enable|delete`: the operator's commands for accounts.
package struct AccountsCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List accounts with their usage and last activity; disable, enable or delete one.",
        discussion: """
            These commands show an account's name, dates and counts, never its data, device \
            names, tokens or key material. Run them while `serve` runs or not: a disabled or \
            deleted account's event streams in a running server end at their next keep-alive \
            (15 s). Exit codes: 0 done, 1 no account has that name or `delete` lacks --yes \
            (nothing changed), 64 usage, 69 database unreachable, 74 data folder or stored data.
            """,
        subcommands: [List.self, Disable.self, Enable.self, Delete.self])

    package init() {}
}

extension AccountsCommand {
    /// `suite-server accounts list [--json]`.
    package struct List: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "One line per account: created, last activity, devices, logs, operations, bytes stored, and whether it is disabled.",
            discussion: """
                Last activity is the latest of the account's creation, its devices' sign-ins and \
                their last requests (kept to about a minute). Bytes are what its quota counts. \
                Times are local for people; --json prints one array of objects (ISO 8601 times \
                in UTC, exact bytes) whose keys stay stable: name, createdAt, lastActivityAt, \
                devices, logs, operations, bytes, disabled, disabledAt (null unless disabled).
                """)

        @OptionGroup package var place: StorageOptions

        @Flag(name: .customLong("json"), help: "Print one JSON array instead of a table.")
        package var json = false

        package init() {}

        package func run() async throws {
            try await place.withStorage { storage in
                let accounts = try await AccountAdministration(storage: storage).list()
                if json {
                    StandardOutput.writeLine(try AccountListEntry.json(accounts.map(AccountListEntry.init)))
                } else if accounts.isEmpty {
                    StandardOutput.writeLine("no accounts")
                } else {
                    StandardOutput.writeLine(AccountListEntry.table(accounts))
                }
            }
        }
    }

    /// `suite-server accounts disable NAME`.
    package struct Disable: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: "Refuse an account's devices and password until 'accounts enable'; nothing is deleted.",
            discussion: """
                Every request of its devices gets 403 "this account is disabled by the server's \
                operator", and so do its right password and recovery key (a wrong one gets the \
                usual 401). Its data stays, and counts towards its quota.
                """)

        @OptionGroup package var place: StorageOptions

        @Argument(help: ArgumentHelp("The account's exact name.", valueName: "name"))
        package var name: String

        package init() {}

        package func run() async throws {
            try await place.withStorage { storage in
                let before = try await AccountsCommand.refusingUnknown { try await AccountAdministration(storage: storage).disable(named: name) }
                if let since = before.disabledAt {
                    StandardOutput.writeLine("\(name) was already disabled (since \(PeopleTime.stamp(since)))")
                } else {
                    StandardOutput.writeLine("disabled \(name): its devices and password are refused from now on; nothing was deleted ('suite-server accounts enable' undoes it)")
                }
            }
        }
    }

    /// `suite-server accounts enable NAME`.
    package struct Enable: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Let a disabled account's devices and password work again.")

        @OptionGroup package var place: StorageOptions

        @Argument(help: ArgumentHelp("The account's exact name.", valueName: "name"))
        package var name: String

        package init() {}

        package func run() async throws {
            try await place.withStorage { storage in
                let before = try await AccountsCommand.refusingUnknown { try await AccountAdministration(storage: storage).enable(named: name) }
                StandardOutput.writeLine(before.disabledAt == nil ? "\(name) was not disabled" : "enabled \(name): its devices and password work again")
            }
        }
    }

    /// `suite-server accounts delete NAME --yes`.
    package struct Delete: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete an account and everything of it on the server, for good (needs --yes).",
            discussion: """
                As the owner's own deletion does: its published votes are withdrawn (counts \
                drop), then its devices, logs, operations and shared lists are deleted; its \
                devices' tokens stop working. Without --yes it deletes nothing, says what would \
                go, and exits 1. The devices keep their own copies of the data.
                """)

        @OptionGroup package var place: StorageOptions

        @Argument(help: ArgumentHelp("The account's exact name.", valueName: "name"))
        package var name: String

        @Flag(name: .customLong("yes"), help: "Really delete it.")
        package var yes = false

        package init() {}

        package func run() async throws {
            try await place.withStorage { storage in
                let administration = AccountAdministration(storage: storage)
                guard yes else {
                    let account = try await AccountsCommand.refusingUnknown { try await administration.summary(named: name) }
                    throw ServerFailure("deleting \(name) removes \(AccountsCommand.contents(account)) for good; add --yes to delete it", exitCode: ServerFailure.failure)
                }
                let deleted = try await AccountsCommand.refusingUnknown { try await administration.delete(named: name) }
                StandardOutput.writeLine("deleted \(name) and \(AccountsCommand.contents(deleted))")
            }
        }
    }

    /// What an account holds, for people: `2 devices, 3 logs, 120 operations (4 kB)`.
    static func contents(_ account: AccountSummary) -> String {
        func count(_ value: Int64, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }
        return "\(count(account.devices, "device")), \(count(account.logs, "log")), \(count(account.operations, "operation")) "
            + "(\(AccountListEntry.bytes(account.bytes)))"
    }

    /// Runs a body, turning the administration's refusals into one line and exit 1.
    static func refusingUnknown<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as AccountAdministrationError {
            throw ServerFailure(error.description, exitCode: ServerFailure.failure)
        }
    }
}
