/// A failure that ends the command: one line for stderr and the exit code (sysexits).
package struct ServerFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Usage: bad flags or values.
    package static let usage: Int32 = 64
    /// The database cannot be reached.
    package static let unavailable: Int32 = 69
    /// Input that cannot be used (a damaged backup).
    package static let dataError: Int32 = 65
    /// A file named on the command line cannot be read (a TLS certificate or key).
    package static let noInput: Int32 = 66
    /// The data folder or the stored data cannot be used.
    package static let ioError: Int32 = 74
    /// Anything else that failed, or was refused with nothing changed (`accounts` given a
    /// name no account has, or `accounts delete` without --yes).
    package static let failure: Int32 = 1

    /// What went wrong and what to do, on one line.
    package var message: String
    /// The process's exit code.
    package var exitCode: Int32

    /// Creates a failure.
    package init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The failure for a storage error: 69 when the database cannot be reached, 74 for the
    /// data folder or the stored data.
    package init(_ error: ServerStorageError) {
        switch error {
        case .unavailable:
            self.init(error.description, exitCode: Self.unavailable)
        case .dataDirectory, .migrationFailed, .corrupt, .accountExists, .unknownAccount, .logMoved, .inviteRefused, .quotaExceeded:
            self.init(error.description, exitCode: Self.ioError)
        }
    }

    package var description: String { message }
}
