import Foundation
import SuiteStorage

extension QuoteStore {
    /// The store file's `PRAGMA application_id` ("SQUT"): set when it is created, checked on
    /// every open and by ``checkIntegrity(at:busyTimeout:)``.
    static let applicationID: Int32 = 0x5351_5554

    /// Runs SQLite's integrity check (`PRAGMA integrity_check`) on the quote store file at
    /// `url` through a read-only connection, and compares its schema with the one this library
    /// makes (a trigger, view, table or index it does not make is a problem, named): the file is
    /// never written, created or repaired.
    ///
    /// - Parameters:
    ///   - url: The store file.
    ///   - busyTimeout: How long to wait for another process that holds the store.
    /// - Returns: What SQLite found wrong (at most 100 lines); empty when the store is healthy.
    /// - Throws: ``QuoteError/store(_:)`` with kind ``StoreError/Kind/damaged`` or
    ///   ``StoreError/Kind/foreign`` when the file is not a readable quote store at all (random bytes, truncated, another application's database, damage SQLite
    ///   stops at), ``StoreError/Kind/busy`` or ``StoreError/Kind/unavailable``.
    public static func checkIntegrity(at url: URL, busyTimeout: TimeInterval = 10) throws(QuoteError) -> [String] {
        do {
            return try StoreCheck.problems(path: url.standardizedFileURL.path, applicationID: applicationID, migrator: migrator, busyTimeout: busyTimeout)
        } catch {
            throw QuoteError(storeFailure: error)
        }
    }
}
