import Foundation
import Testing
@testable import SuiteCLI

@Suite struct StoreLocationTests {
    let home = ["HOME": "/home/ada"]

    @Test func storeDirBeatsSuiteHomeBeatsXDGBeatsHome() throws {
        let all = home.merging(["SUITE_HOME": "/suite-home", "XDG_DATA_HOME": "/xdg"]) { $1 }
        #expect(try StoreLocation.folder(storeDir: "/flag", environment: all).path == "/flag")
        #expect(try StoreLocation.folder(storeDir: nil, environment: all).path == "/suite-home")
        #expect(try StoreLocation.folder(storeDir: nil, environment: home.merging(["XDG_DATA_HOME": "/xdg"]) { $1 }).path == "/xdg/suite")
        #expect(try StoreLocation.folder(storeDir: nil, environment: home).path == "/home/ada/.local/share/suite")
    }

    @Test func emptyAndRelativeValuesCountAsUnset() throws {
        let env = home.merging(["SUITE_HOME": "", "XDG_DATA_HOME": "relative/path"]) { $1 }
        #expect(try StoreLocation.folder(storeDir: "", environment: env).path == "/home/ada/.local/share/suite")
        #expect(try StoreLocation.folder(storeDir: "~/data", environment: env).path == "/home/ada/data")
    }

    @Test func theDefaultFoldersAreJoinedAsAppendingPathComponentJoinsThem() throws {
        for home in ["/home/ada", "/home/ada/", "/", "/a b/ü%20"] {
            let folder = try StoreLocation.folder(storeDir: nil, environment: ["HOME": home])
            #expect(folder.path == URL(fileURLWithPath: home).appendingPathComponent(".local/share/suite").path)
            let xdg = try StoreLocation.folder(storeDir: nil, environment: ["HOME": "/h", "XDG_DATA_HOME": home])
            #expect(xdg.path == URL(fileURLWithPath: home).appendingPathComponent("suite").path)
        }
    }

    @Test func theStoreFileIsTheFolderJoinedWithItsName() throws {
        for folder in ["/flag", "/flag/", "/", "/a b/ü", "/tmp/x/../y", "relative/dir", "~/data"] {
            let options = PlainStoreOptions(storeDir: folder)
            var context = CLIContext.process
            context.environment = home
            let joined = try CLIContext.$bound.withValue(context) { try options.storeFile("quotes.sqlite") }
            let expected = try StoreLocation.folder(storeDir: folder, environment: home).appendingPathComponent("quotes.sqlite")
            #expect(joined.path == expected.path, "\(folder)")
            #expect(joined.isFileURL)
        }
    }

    /// The store file's path made as text is the one a store opened at the URL has.
    @Test func theStoreFilePathIsTheStandardizedURLsPath() throws {
        let folders = ["/flag", "/flag/", "/", "/a b/ü%20", "/tmp/x/../y", "/tmp/./y", "/tmp//y", "//tmp", "relative/dir", "./dir",
                       "~/data", "~", "/a/.b/..c/...", "/trailing/dot/.", "/x/..", "/private/tmp", "/var/automount/tmp"]
        for folder in folders {
            let options = PlainStoreOptions(storeDir: folder)
            var context = CLIContext.process
            context.environment = home
            let (path, url) = try CLIContext.$bound.withValue(context) {
                (try options.storeFilePath("quotes.sqlite"), try options.storeFile("quotes.sqlite"))
            }
            #expect(path == url.standardizedFileURL.path, "\(folder)")
        }
        #expect(StoreLocation.isPlainAbsolute("/a b/.c/d..") && StoreLocation.isPlainAbsolute("/") && StoreLocation.isPlainAbsolute("/a/"))
        #expect(!StoreLocation.isPlainAbsolute("/a//b") && !StoreLocation.isPlainAbsolute("/a/./b") && !StoreLocation.isPlainAbsolute("/a/..")
                && !StoreLocation.isPlainAbsolute("a/b") && !StoreLocation.isPlainAbsolute(""))
        // Foundation drops these prefixes when the shorter path exists (here `/tmp` does).
        #expect(!StoreLocation.isPlainAbsolute("/private/tmp") && !StoreLocation.isPlainAbsolute("/var/automount/tmp")
                && !StoreLocation.isPlainAbsolute("/private") && StoreLocation.isPlainAbsolute("/privateer/tmp"))
    }

    /// As `getenv` sees it (for a name given twice, the first; `ProcessInfo` keeps the last).
    @Test func theProcessEnvironmentIsReadAsGetenvSeesIt() {
        setenv("SUITE_TEST_ENVIRONMENT_READ", "a=b=c ü", 1)
        defer { unsetenv("SUITE_TEST_ENVIRONMENT_READ") }
        let read = CLIContext.processEnvironment()
        #expect(read["SUITE_TEST_ENVIRONMENT_READ"] == "a=b=c ü")
        for (name, value) in read { #expect(getenv(name).map { String(cString: $0) } == value, "\(name)") }
        #expect(read == ProcessInfo.processInfo.environment)
    }

    @Test func noHomeAtAllIsAUsageError() {
        #expect(throws: (any Error).self) { try StoreLocation.folder(storeDir: nil, environment: [:]) }
    }

    @Test func sharedOptionsBeforeTheGroupAreMovedAfterIt() {
        #expect(SuiteMain.hoistingSharedOptions(["--store-dir", "/s", "bmm", "list"]) == ["bmm", "list", "--store-dir", "/s"])
        #expect(SuiteMain.hoistingSharedOptions(["--json", "bmm", "list", "--", "-x"]) == ["bmm", "list", "--json", "--", "-x"])
        #expect(SuiteMain.hoistingSharedOptions(["bmm", "list", "--json"]) == ["bmm", "list", "--json"])
        #expect(SuiteMain.hoistingSharedOptions(["--version"]) == ["--version"])
    }

    @Test func parsingInProcess() throws {
        let command = try SuiteCommand.parseAsRoot(["bmm", "show", "Customer Needs", "--store-dir", "/tmp/x", "--json"])
        let show = try #require(command as? BMMCommand.Show)
        #expect(show.section.id == .customerNeeds)
        #expect(show.options.json)
        #expect(show.options.storeDir == "/tmp/x")
        #expect(throws: (any Error).self) { try SuiteCommand.parseAsRoot(["bmm", "show", "nowhere"]) }
    }
}

@Suite struct FrameEndToEndTests {
    @Test func helpListsTheFourGroups() throws {
        let result = try Suite().run("--help")
        #expect(result.status == 0)
        for group in ["bmm", "places", "quotes", "bundle"] {
            #expect(result.stdout.contains("  \(group) "), "\(group) missing from help")
        }
    }

    /// The built executable itself, end to end.
    @Test func versionPrintsTheVersion() throws {
        let result = try Suite().runProcess(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == SuiteVersion.current)
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsAreGenerated(shell: String) throws {
        let result = try Suite().run("--generate-completion-script", shell)
        #expect(result.status == 0)
        #expect(result.stdout.contains("suite"))
        #expect(result.stdout.contains("bmm"))
    }

    @Test func unknownOptionsAndCommandsAreUsageErrors() throws {
        let suite = try Suite()
        expectFailure(try suite.run("bmm", "list", "--frobnicate"), status: 64, "Unknown option '--frobnicate'")
        expectFailure(try suite.run("nonsense"), status: 64, "nonsense")
        expectFailure(try suite.run("bmm", "show"), status: 64, "Missing expected argument")
    }

    @Test func storeDirBeatsSuiteHomeBeatsXDGEndToEnd() throws {
        var suite = try Suite()
        let flag = suite.path("flag"), home = suite.path("suite-home"), xdg = suite.path("xdg")
        suite.environment["SUITE_HOME"] = home
        suite.environment["XDG_DATA_HOME"] = xdg
        #expect(try suite.run("bmm", "new", "One", "--store-dir", flag).status == 0)
        #expect(FileManager.default.fileExists(atPath: flag + "/bmm.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: home + "/bmm.sqlite"))
        // Before the group works too.
        #expect(try suite.run("--store-dir", flag, "bmm", "new", "Two").status == 0)
        #expect(try suite.run("bmm", "new", "Three").status == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/bmm.sqlite"))
        suite.environment["SUITE_HOME"] = nil
        #expect(try suite.run("bmm", "new", "Four").status == 0)
        #expect(FileManager.default.fileExists(atPath: xdg + "/suite/bmm.sqlite"))
        suite.environment["XDG_DATA_HOME"] = nil
        #expect(try suite.run("bmm", "new", "Five").status == 0)
        #expect(FileManager.default.fileExists(atPath: suite.path(".local/share/suite/bmm.sqlite")))
        let listed = try suite.run("bmm", "list", "--store-dir", flag).stdout
        #expect(listed.contains("One") && listed.contains("Two") && !listed.contains("Three"))
    }

    @Test func anUnwritableStoreFolderExits74() throws {
        let suite = try Suite()
        let file = suite.path("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let result = try suite.run("bmm", "new", "Acme", "--store-dir", file + "/store")
        expectFailure(result, status: 74, file)
        let folderIsFile = try suite.run("bmm", "list", "--store-dir", file)
        expectFailure(folderIsFile, status: 74, "is a file, not a folder")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("x".utf8))
    }

    @Test func aCorruptStoreExits74AndIsLeftUntouched() throws {
        let suite = try Suite()
        try FileManager.default.createDirectory(at: suite.storeFolder, withIntermediateDirectories: true)
        let store = suite.storeFolder.appendingPathComponent("bmm.sqlite")
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        try garbage.write(to: store)
        let result = try suite.run("bmm", "list")
        expectFailure(result, status: 74, store.path)
        #expect(try Data(contentsOf: store) == garbage)
    }


    @Test func sixProcessesOpeningOneFreshStoreAllSucceed() async throws {
        let suite = try Suite()
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for index in 0..<6 {
                group.addTask { try await suite.runProcessAsync(["bmm", "new", "Model \(index)"]).status }
            }
            var statuses: [Int32] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses == Array(repeating: 0, count: 6))
        let listed = try suite.run("bmm", "list", "--json")
        let names = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(listed.stdout.utf8)).compactMap { $0["name"]?.string }
        #expect(Set(names) == Set((0..<6).map { "Model \($0)" }))
        let mode = try FileManager.default.attributesOfItem(atPath: suite.storeFolder.appendingPathComponent("bmm.sqlite").path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }
}

/// A small JSON value for reading `--json` output in tests.
enum JSONValue: Decodable, Equatable {
    case string(String), number(Double), bool(Bool), null, array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    subscript(key: String) -> JSONValue? { if case .object(let value) = self { value[key] } else { nil } }
    var array: [JSONValue] { if case .array(let value) = self { value } else { [] } }
}
