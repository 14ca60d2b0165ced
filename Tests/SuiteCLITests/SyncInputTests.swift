import Foundation
import Testing

/// Bad input to `suite sync`: one clear line, the documented exit code, and nothing written
/// (no sync.json, no store created, no request that could change a server).
@Suite struct SyncInputTests {
    static let account = ["--account", "ada", "--password-stdin"]
    static let cases: [(arguments: [String], stdin: String, status: Int32, message: String)] = [
        (["sync", "signup", "--server", "http://127.0.0.1:9", "--account", "ada"], "long enough", 64, "--password-stdin"),
        (["sync", "signup", "--server", "http://127.0.0.1:9", "--account", "", "--password-stdin"], "long enough", 64, "account name"),
        (["sync", "signup", "--server", "http://127.0.0.1:9", "--account", "a\u{7}b", "--password-stdin"], "long enough", 64, "account name"),
        (["sync", "signup", "--server", "ftp://example.org"] + account, "long enough", 64, "not a server URL"),
        (["sync", "login", "--server", "not a url"] + account, "long enough", 64, "not a server URL"),
        (["sync", "signup", "--server", "http://127.0.0.1:9"] + account, "short", 65, "shorter than 8"),
        (["sync", "signup", "--server", "http://127.0.0.1:9"] + account, "long enough", 69, "cannot reach the sync server"),
        (["sync"], "", 1, "does not sync yet"),
        (["sync", "devices"], "", 1, "does not sync yet"),
        (["sync", "revoke", "some-device"], "", 1, "does not sync yet"),
    ]

    @Test(arguments: cases.indices)
    func badInputGivesOneClearLineAndWritesNothing(index: Int) throws {
        let bad = Self.cases[index]
        let suite = try Suite()
        let result = try suite.run(bad.arguments, stdin: Data(bad.stdin.utf8))
        expectFailure(result, status: bad.status, bad.message)
        let written = (try? FileManager.default.contentsOfDirectory(atPath: suite.storeFolder.path)) ?? []
        #expect(!written.contains("sync.json"), "\(bad.arguments)")
        #expect(result.stdout.isEmpty, "\(bad.arguments): \(result.stdout)")
    }

    @Test func logoutWhereNothingSyncsSaysSoAndChangesNothing() throws {
        let suite = try Suite()
        let result = try suite.run(["sync", "logout"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("was not syncing"))
        #expect(!FileManager.default.fileExists(atPath: suite.storeFolder.appendingPathComponent("sync.json").path))
    }

    @Test func statusWhereNothingSyncsSaysHowToStart() throws {
        let suite = try Suite()
        let result = try suite.run(["sync", "status"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Not syncing"))
    }
}
