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
        (["sync", "signup", "--server", "http://127.0.0.1:9", "--invite", ""] + account, "long enough", 64, "--invite"),
        (["sync", "signup", "--server", "http://127.0.0.1:9", "--invite", String(repeating: "A", count: 65)] + account, "long enough", 64, "--invite"),
        (["sync", "signup", "--server", "http://127.0.0.1:9"] + account, "long enough", 69, "cannot reach the sync server"),
        (["sync"], "", 1, "does not sync yet"),
        (["sync", "devices"], "", 1, "does not sync yet"),
        (["sync", "revoke", "some-device"], "", 1, "does not sync yet"),
        (["sync", "password"], "old password\nnew password\n", 64, "--stdin"),
        (["sync", "password", "--stdin"], "old password\nnew password\n", 1, "does not sync yet"),
        (["sync", "delete-account", "--stdin"], "the password", 64, "pass --yes"),
        (["sync", "delete-account", "--yes"], "the password", 64, "--stdin"),
        (["sync", "delete-account", "--stdin", "--yes"], "the password", 1, "does not sync yet"),
        (recover, "\(key)\nlong enough\n", 69, "cannot reach the sync server"),
        (["sync", "recover", "--server", "http://127.0.0.1:9", "--account", "ada"], "\(key)\nlong enough\n", 64, "--stdin"),
        (["sync", "recover", "--server", "gopher://x", "--account", "ada", "--stdin"], "\(key)\nlong enough\n", 64, "not a server URL"),
        (recover, "not a key\nlong enough\n", 65, "not a recovery key"),
        (recover, "\(key)x\nlong enough\n", 65, "not a recovery key"),
        (recover, "\(key)\nshort\n", 65, "shorter than 8"),
        (recover, "\(key)\n", 65, "line 2 of standard input (the new password) is missing"),
        (recover, "", 65, "line 1 of standard input (the recovery key) is missing"),
        (recover, "\(key)\nlong enough\nthird line\n", 65, "more than 2 lines"),
    ]
    static let recover = ["sync", "recover", "--server", "http://127.0.0.1:9", "--account", "ada", "--stdin"]
    static let key = "0123abcd-0123abcd-0123abcd-0123abcd-0123abcd-0123abcd-0123abcd-0123abcd"

    /// With a sync.json whose server cannot be reached: bad input is refused before any
    /// request (which would exit 69), and the file is not touched.
    @Test(arguments: [
        (["sync", "password", "--stdin"], "old password\n", 65, "line 2 of standard input (the new password) is missing"),
        (["sync", "password", "--stdin"], "\nnew password\n", 65, "line 1 of standard input (the current password) is missing"),
        (["sync", "password", "--stdin"], "old password\nshort\n", 65, "the new password is shorter than 8"),
        (["sync", "password", "--stdin"], "old password\r\nnew password\r\n", 69, "cannot reach the sync server"),
        (["sync", "delete-account", "--stdin", "--yes"], "", 65, "line 1 of standard input (the password) is missing"),
        (["sync", "delete-account", "--stdin", "--yes"], "the password", 69, "cannot reach the sync server"),
    ])
    func keyCommandsCheckTheirInputBeforeAnyRequest(arguments: [String], stdin: String, status: Int32, message: String) throws {
        let suite = try Suite()
        let settings = suite.storeFolder.appendingPathComponent("sync.json")
        try FileManager.default.createDirectory(at: suite.storeFolder, withIntermediateDirectories: true)
        let json = #"{"account":"ada","dataKey":"\#(Data(count: 32).base64EncodedString())","deviceID":"d1","server":"http://127.0.0.1:9","token":"t"}"#
        try Data(json.utf8).write(to: settings)
        let result = try suite.run(arguments, stdin: Data(stdin.utf8))
        expectFailure(result, status: status, message)
        #expect(try String(contentsOf: settings, encoding: .utf8) == json)
        #expect(result.stdout.isEmpty)
    }

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
