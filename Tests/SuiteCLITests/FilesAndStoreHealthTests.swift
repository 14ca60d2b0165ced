import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures").standardizedFileURL

/// The kind of file at `path` without following a link (`S_IFREG`, `S_IFLNK` …), nil when nothing is there.
private func fileKind(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
}

/// A store with a few records in each of the four stores.
private func suiteWithStores() throws -> Suite {
    let suite = try Suite()
    #expect(try suite.run("bmm", "new", "Acme").status == 0)
    #expect(try suite.run("places", "import", fixtures.appendingPathComponent("places/berlin.geojson").path).status == 0)
    #expect(try suite.run("quotes", "import", "csv", fixtures.appendingPathComponent("quotes/sample.csv").path).status == 0)
    #expect(try suite.run("bundle", "add", "buy milk").status == 0)
    return suite
}

/// The commands that take `-o FILE`.
private let outputCommands: [[String]] = [
    ["bmm", "export", "--format", "json"],
    ["places", "export"],
    ["places", "map", "--at", "52.52,13.405"],
    ["quotes", "export"],
    ["bundle", "export", "--format", "json"],
]

/// §4 of issue 14: `-o FILE` never replaces what is not a regular file.
@Suite struct OutputFiles {
    @Test(arguments: outputCommands)
    func dashMeansStandardOutput(command: [String]) throws {
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let plain = try suite.run(command)
        #expect(plain.status == 0, "\(plain.stderr)")
        // Run from the test's folder, so a file named "-" would show up there.
        let dashed = try suite.run(["cd \"$1\" && shift && exec \"$@\"", "sh", suite.folder.path, Suite.binary.path] + command + ["-o", "-"],
                                   viaShell: true)
        #expect(dashed.status == 0, "\(dashed.stderr)")
        #expect(dashed.stdout == plain.stdout)
        #expect(!plain.stdout.isEmpty)
        #expect(fileKind(suite.path("-")) == nil, "a file named '-' was written")
    }

    @Test func aCharacterDeviceIsWrittenIntoNotReplaced() throws {
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        var devices = ["/dev/null"]
        // A private copy of /dev/null where we may make one (root): replacing it would not hurt.
        let copy = suite.path("null")
        if mknod(copy, S_IFCHR | 0o666, 0x103) == 0 { devices.insert(copy, at: 0) }  // makedev(1, 3)
        for device in devices {
            var before = stat()
            #expect(stat(device, &before) == 0)
            let result = try suite.run("quotes", "export", "-o", device)
            #expect(result.status == 0, "\(result.stderr)")
            var after = stat()
            #expect(lstat(device, &after) == 0)
            #expect(after.st_mode & S_IFMT == S_IFCHR, "\(device) is no longer a character device")
            #expect(after.st_ino == before.st_ino && after.st_rdev == before.st_rdev)
            #expect(after.st_mode & 0o7777 == before.st_mode & 0o7777)
        }
    }

    @Test func aFIFOsReaderGetsTheWholeExport() throws {
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let expected = try suite.run("quotes", "export")
        #expect(expected.status == 0)
        #expect(expected.stdout.utf8.count < 60_000, "the export must fit in a pipe buffer for this test")
        let fifo = suite.path("export.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader is open before suite runs (non-blocking, so the test cannot hang).
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let result = try suite.run("quotes", "export", "-o", fifo)
        #expect(result.status == 0, "\(result.stderr)")
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(reader, &chunk, chunk.count)
            if count <= 0 { break }
            received += chunk[..<count]
        }
        #expect(String(decoding: received, as: UTF8.self) == expected.stdout)
        #expect(fileKind(fifo) == S_IFIFO, "the FIFO was replaced")
    }

    @Test func aSymlinkStaysALinkAndItsTargetGetsTheContent() throws {
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let target = suite.path("target.json"), link = suite.path("link.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        #expect(chmod(target, 0o640) == 0)
        #expect(symlink("target.json", link) == 0)
        let result = try suite.run("quotes", "export", "-o", link)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileKind(link) == S_IFLNK, "the link was replaced by a file")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == (try suite.run("quotes", "export").stdout))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.json")
        var info = stat()
        #expect(stat(target, &info) == 0 && info.st_mode & 0o7777 == 0o640, "the target's mode changed")
    }

    /// `/dev/stdout` and a link to `/proc/self/fd/1` name the caller's standard output: written
    /// into, whether it is a pipe or a file, never replaced.
    @Test func descriptorPathsAreWrittenInto() throws {
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let plain = try suite.run("quotes", "export")
        let link = suite.path("to-stdout")
        #expect(symlink("/proc/self/fd/1", link) == 0)
        // A process of its own: descriptor 1 of this one is the test runner's.
        let throughLink = try suite.runProcess(["quotes", "export", "-o", link])
        #expect(throughLink.status == 0, "\(throughLink.stderr)")
        #expect(throughLink.stdout == plain.stdout)
        #expect(fileKind(link) == S_IFLNK)
        let piped = try suite.run(["\"$@\" -o /dev/stdout | cat", "sh", Suite.binary.path, "quotes", "export"], viaShell: true)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == plain.stdout)
    }

    @Test func aFolderOrADanglingLinkIsRefusedWith74() throws {
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        expectFailure(try suite.run("quotes", "export", "-o", suite.folder.path), status: 74, "folder")
        let dangling = suite.path("dangling.json")
        #expect(symlink("nowhere/x.json", dangling) == 0)
        expectFailure(try suite.run("quotes", "export", "-o", dangling), status: 74, "symbolic link")
        #expect(fileKind(dangling) == S_IFLNK)
    }
}

/// §4 of issue 14: pipes, FIFOs and /dev/stdin are inputs like any file.
@Suite struct StreamInputs {
    /// Each import, with a document it accepts.
    static func imports() throws -> [(arguments: [String], document: String, check: [String], expect: String)] {
        let donor = try Suite()
        defer { try? FileManager.default.removeItem(at: donor.folder) }
        #expect(try donor.run("bmm", "new", "Streamed Bakery").status == 0)
        let model = try donor.run("bmm", "export", "--format", "json").stdout
        return [
            (["bmm", "import"], model, ["bmm", "list"], "Streamed Bakery"),
            (["places", "import"], try String(contentsOf: fixtures.appendingPathComponent("places/berlin.geojson"), encoding: .utf8),
             ["places", "export"], "Kaffee Eck"),
            (["quotes", "import", "csv"], "text,author,category\n\"Streams are files too.\",Tester,test\n",
             ["quotes", "search", "streams"], "are files too."),
            (["bundle", "import", "--format", "todotxt"], "water the plants\n", ["bundle", "todos"], "water the plants"),
        ]
    }

    @Test func importsReadAFIFO() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        for (index, item) in try Self.imports().enumerated() {
            let fifo = suite.path("input-\(index).fifo"), document = suite.path("document-\(index)")
            try Data(item.document.utf8).write(to: URL(fileURLWithPath: document))
            #expect(mkfifo(fifo, 0o600) == 0)
            // The writer runs in the background; killed afterwards in case suite never opened the FIFO.
            let result = try suite.run(["cat \"$1\" > \"$2\" & writer=$!; shift 2; \"$@\"; status=$?; kill $writer 2>/dev/null; exit $status",
                                        "sh", document, fifo, Suite.binary.path] + item.arguments + [fifo], viaShell: true)
            #expect(result.status == 0, "\(item.arguments): \(result.stderr)")
            #expect(try suite.run(item.check).stdout.contains(item.expect), "\(item.arguments)")
        }
    }

    @Test func importsReadAPipeThroughDevStdin() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        for (index, item) in try Self.imports().enumerated() {
            let document = suite.path("document-\(index)")
            try Data(item.document.utf8).write(to: URL(fileURLWithPath: document))
            let result = try suite.run(["document=\"$1\"; shift; cat \"$document\" | \"$@\"", "sh", document, Suite.binary.path]
                                       + item.arguments + ["/dev/stdin"], viaShell: true)
            #expect(result.status == 0, "\(item.arguments): \(result.stderr)")
            #expect(try suite.run(item.check).stdout.contains(item.expect), "\(item.arguments)")
        }
    }

    @Test func bmmSetReadsItsTextFromAFIFO() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        #expect(try suite.run("bmm", "new", "Acme").status == 0)
        let fifo = suite.path("text.fifo"), document = suite.path("text")
        try Data("Fresh bread before seven.".utf8).write(to: URL(fileURLWithPath: document))
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try suite.run(["cat \"$1\" > \"$2\" & writer=$!; \"$3\" bmm set vp --file \"$2\"; status=$?; kill $writer 2>/dev/null; exit $status",
                                    "sh", document, fifo, Suite.binary.path], viaShell: true)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try suite.run("bmm", "show", "vp").stdout.contains("Fresh bread before seven."))
    }
}

/// §4 of issue 14: damage SQLite meets is exit 74 for reads and writes, the file untouched;
/// `suite check` runs SQLite's integrity check on every store.
@Suite struct DamagedStores {
    /// A quotes store whose `quote` table is deep enough to have an interior B-tree page as its
    /// root, and that page overwritten with garbage (the 100-byte header left intact).
    static func damagedQuotesStore() throws -> (suite: Suite, path: String) {
        let suite = try Suite()
        var csv = "text,author,category\n"
        for index in 0..<3_000 { csv += "\"Quote number \(index) with a few words\",Author \(index % 50),cat\(index % 7)\n" }
        let file = suite.path("many.csv")
        try Data(csv.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try suite.run("quotes", "import", "csv", file).status == 0)
        let path = suite.storeFolder.appendingPathComponent("quotes.sqlite").path
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: config)
        let (root, pageSize) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'quote'") ?? 0,
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
        try queue.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let offset = (root - 1) * pageSize
        try #require(root > 1 && pageSize >= 512 && offset + pageSize <= bytes.count)
        try #require(bytes[offset] == 0x05, "the quote table's root should be an interior table page")
        bytes.replaceSubrange(offset..<offset + pageSize, with: [UInt8](repeating: 0xA5, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: path))
        return (suite, path)
    }

    @Test func readsAndWritesOfADamagedStoreExit74AndLeaveItByteIdentical() throws {
        let (suite, path) = try Self.damagedQuotesStore()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        for command in [["quotes", "search", "number"], ["quotes", "export"],
                        ["quotes", "add", "One more quote"], ["quotes", "import", "csv", "-"]] {
            let result = try suite.run(command, stdin: Data("text,author,category\n\"Another one\",Me,x\n".utf8))
            expectFailure(result, status: 74, path)
            #expect(result.stderr.contains("damaged"), "\(command): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged, "\(command) changed the damaged file")
            let log = (try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data()
            #expect(log.isEmpty, "\(command) wrote to the write-ahead log")
        }
    }

    @Test func checkReportsTheDamagedStoreAndExits74() throws {
        let (suite, path) = try Self.damagedQuotesStore()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        #expect(try suite.run("bmm", "new", "Acme").status == 0)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = try suite.run("check")
        #expect(text.status == 74, "\(text.stderr)")
        #expect(text.stdout.contains("bmm: healthy"))
        #expect(text.stdout.contains("quotes: DAMAGED (\(path))"), "\(text.stdout)")
        expectFailure(text, status: 74, "not healthy: quotes")
        let json = try suite.run("check", "--json")
        #expect(json.status == 74)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["healthy"] as? Bool == false)
        let stores = try #require(document["stores"] as? [[String: Any]])
        #expect(stores.map { $0["store"] as? String } == ["bmm", "quotes"])
        #expect(stores.map { $0["healthy"] as? Bool } == [true, false])
        #expect((stores[1]["problems"] as? [String])?.isEmpty == false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged, "check changed the file")
    }

    @Test func healthyStoresCheckOK() throws {
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let text = try suite.run("check")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stderr.isEmpty)
        #expect(text.stdout.split(separator: "\n").map { $0.prefix(while: { $0 != "(" }) }
                == ["bmm: healthy ", "places: healthy ", "quotes: healthy ", "bundle: healthy "])
        let json = try suite.run("check", "--json")
        #expect(json.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["healthy"] as? Bool == true)
        #expect((document["stores"] as? [Any])?.count == 4)
    }

    @Test func checkReportsAFileThatIsNoStoreAndCreatesNothing() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        try FileManager.default.createDirectory(at: suite.storeFolder, withIntermediateDirectories: true)
        let path = suite.storeFolder.appendingPathComponent("bundle.sqlite").path
        let garbage = Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        let result = try suite.run("check")
        expectFailure(result, status: 74, "not healthy: bundle")
        #expect(result.stdout.contains("bundle: DAMAGED"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        #expect(try FileManager.default.contentsOfDirectory(atPath: suite.storeFolder.path) == ["bundle.sqlite"])
    }
}

/// §4 of issue 14: a refused write leaves the store file (and its log) byte-identical.
@Suite struct RefusedWrites {
    static let cases: [(store: String, arguments: [String], status: Int32)] = [
        ("bmm.sqlite", ["bmm", "new", "Bad\u{1}Name"], 65),
        ("bmm.sqlite", ["bmm", "new", String(repeating: "x", count: 100_000)], 65),
        ("bmm.sqlite", ["bmm", "new", "Acme"], 1),
        ("places.sqlite", ["places", "add", "--name", "Bad\u{1}Place", "--at", "52.5,13.4"], 65),
        ("places.sqlite", ["places", "add", "--name", "Nowhere", "--at", "91,13.4"], 65),
        ("quotes.sqlite", ["quotes", "add", "Bad\u{1}quote"], 65),
        ("quotes.sqlite", ["quotes", "add", String(repeating: "y", count: 100_000)], 65),
        ("bundle.sqlite", ["bundle", "add", "Bad\u{1}todo"], 65),
        ("bundle.sqlite", ["bundle", "add", "fine", "--deadline", "2026-02-30"], 65),
    ]

    @Test(arguments: cases.indices)
    func aRefusedWriteLeavesTheStoreByteIdentical(index: Int) throws {
        let item = Self.cases[index]
        let suite = try suiteWithStores()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let path = suite.storeFolder.appendingPathComponent(item.store).path
        func contents() -> (Data?, Data?) {
            (try? Data(contentsOf: URL(fileURLWithPath: path)), try? Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
        }
        let before = contents()
        let result = try suite.run(item.arguments)
        #expect(result.status == item.status, "\(item.arguments.map { $0.prefix(40) }): \(result.stderr)")
        let after = contents()
        #expect(after.0 == before.0, "\(item.store) changed")
        #expect((after.1 ?? Data()) == (before.1 ?? Data()), "\(item.store)-wal changed")
    }
}
