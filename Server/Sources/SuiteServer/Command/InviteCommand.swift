import ArgumentParser
import Foundation

/// `suite-server invite [--data-dir DIR | --database URL] [--days N]`.
package struct InviteCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Print a one-time code that lets one person sign up (serve --signup invite, the default).",
        discussion: """
            Give the code to the person; they sign up with \
            `suite sync signup --server URL --account NAME --invite CODE`. A code works once, \
            until it expires; the server keeps only its hash. Run it while `serve` runs or not.
            """ + "\n\n" + EnvironmentOptions.help(for: "invite"))

    @OptionGroup package var place: StorageOptions

    @Option(name: .customLong("days"), help: ArgumentHelp("Days until the code expires.", valueName: "days"))
    package var days: Double = 7

    package init() {}

    package func validate() throws {
        guard days.isFinite, days > 0, days <= 366 else { throw ValidationError("--days must be more than 0 and at most 366") }
    }

    package func run() async throws {
        let code = InviteCode.generate()
        let now = Date()
        let expires = now.addingTimeInterval(days * 86_400)
        try await place.withStorage { storage in
            try await storage.createInvite(codeHash: InviteCode.hash(code), createdAt: now, expiresAt: expires)
        }
        StandardOutput.writeLine(code)
        FileHandle.standardError.write(Data("suite-server: the code above lets one person sign up until \(expires.formatted(.iso8601)); it is not stored, only its hash\n".utf8))
    }
}
