import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `suite` process that can be killed.
final class Spawned: @unchecked Sendable {
    let process = Process()
    let output: URL
    private let handles: [FileHandle]

    init(_ suite: Suite, _ arguments: [String], environment extra: [String: String] = [:]) throws {
        output = suite.folder.appendingPathComponent(".spawn-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let out = try FileHandle(forWritingTo: output)
        let null = FileHandle.nullDevice
        handles = [out]
        process.executableURL = Suite.binary
        process.arguments = arguments
        process.environment = suite.environment.merging(extra) { $1 }
        process.standardOutput = out
        process.standardError = null
        process.standardInput = null
        try process.run()
    }

    func kill() { Glibc.kill(process.processIdentifier, SIGKILL) }

    /// Waits for the end; returns the exit status (nil when killed) and what it printed.
    func wait() -> (status: Int32?, stdout: String) {
        process.waitUntilExit()
        try? handles.forEach { try $0.close() }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: output)
        return (process.terminationReason == .exit ? process.terminationStatus : nil, text)
    }

    var printed: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
}

extension Task where Success == Never, Failure == Never {
    /// Runs blocking work (process waits) on a thread of its own, neither on the cooperative pool
    /// nor on GCD's few threads (which in-process commands need, for a fetch say).
    static func detachedOnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await InProcess.onThread(work)
    }
}

/// What a crash run found.
struct CrashFigures: CustomStringConvertible {
    var store: String
    var writers: Int
    var writes = 0
    var kills = 0
    var acknowledged: Set<String> = []
    var present: [String] = []
    var integrity = ""

    var lost: Int { acknowledged.subtracting(present).count }
    var duplicates: Int { present.count - Set(present).count }
    var extras: Int { Set(present).subtracting(acknowledged).count }

    var description: String {
        "\(store): writers \(writers), writes \(writes), kills \(kills), acknowledged \(acknowledged.count), lost \(lost), duplicates \(duplicates), unacknowledged extras \(extras), integrity \(integrity)"
    }

    /// The harness's verdict: nothing acknowledged lost, no duplicates, extras ≤ kills, integrity ok.
    var holds: Bool { lost == 0 && duplicates == 0 && extras <= kills && integrity == "ok" }
}

/// One app's writer for the crash harness: a command that writes a record named `key`, and a
/// query listing the records present.
struct CrashTarget: Sendable {
    var name: String
    var file: String
    var setup: [[String]]
    var write: @Sendable (String) -> [String]
    var records: String
}

let crashTargets: [CrashTarget] = [
    CrashTarget(name: "bmm (section saves)", file: "bmm.sqlite", setup: [["bmm", "new", "Crash Co"]],
                write: { ["bmm", "set", "vp", "--text", $0] }, records: "SELECT text FROM section_version WHERE text LIKE 'rec-%'"),
    CrashTarget(name: "places (new places)", file: "places.sqlite", setup: [["places", "location", "set", "52.52,13.405"]],
                write: { ["places", "add", "--name", $0, "--at", "52.52,13.405"] }, records: "SELECT name FROM place WHERE name LIKE 'rec-%'"),
    CrashTarget(name: "quotes (notes)", file: "quotes.sqlite", setup: [["quotes", "starter"], ["quotes", "fav", "1"]],
                write: { ["quotes", "note", "1", $0] }, records: "SELECT text FROM note WHERE text LIKE 'rec-%'"),
    CrashTarget(name: "bundle (todos)", file: "bundle.sqlite", setup: [["bundle", "events", "add", "go to the bank"]],
                write: { ["bundle", "add", $0, "--before", "go to the bank"] }, records: "SELECT text FROM todo WHERE text LIKE 'rec-%'"),
]

/// Reads the records and the integrity of a store after the run (one normal command first, so a
/// killed writer's log is recovered the ordinary way).
func inspect(_ suite: Suite, _ target: CrashTarget, into figures: inout CrashFigures) throws {
    let path = suite.storeFolder.appendingPathComponent(target.file).path
    let queue = try DatabaseQueue(path: path)
    defer { try? queue.close() }
    try queue.read { db in
        figures.present = try String.fetchAll(db, sql: target.records)
        figures.integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: ";")
    }
}

@Suite(.serialized) struct CrashHarnessTests {
    @Test(arguments: crashTargets.indices)
    func killedWritersLoseNothingAcknowledged(index: Int) async throws {
        let target = crashTargets[index]
        let suite = try Suite()
        for command in target.setup { #expect(try suite.run(command).status == 0) }
        let writers = 4, attempts = 20
        let results = try await withThrowingTaskGroup(of: (Int, Int, [String]).self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await Task.detachedOnThread {
                    var generator = SystemRandomNumberGenerator()
                    var writes = 0, kills = 0
                    var acknowledged: [String] = []
                    for attempt in 0..<attempts {
                        let key = "rec-\(writer)-\(attempt)"
                        let child = try Spawned(suite, target.write(key))
                        writes += 1
                        if Int.random(in: 0..<3, using: &generator) == 0 {
                            usleep(UInt32.random(in: 0..<60_000, using: &generator))
                            child.kill()
                        }
                        // A kill counts when it ended the writer (not one sent after it exited).
                        switch child.wait().status {
                        case 0: acknowledged.append(key)
                        case nil: kills += 1
                        default: break
                        }
                    }
                    return (writes, kills, acknowledged)
                    }
                }
            }
            var all: [(Int, Int, [String])] = []
            for try await result in group { all.append(result) }
            return all
        }
        var figures = CrashFigures(store: target.name, writers: writers)
        for (writes, kills, acknowledged) in results {
            figures.writes += writes
            figures.kills += kills
            figures.acknowledged.formUnion(acknowledged)
        }
        #expect(try suite.run(target.setup[0][0] == "bmm" ? ["bmm", "list"] : [target.setup[0][0], "--help"]).status == 0)
        try inspect(suite, target, into: &figures)
        print("crash harness — \(figures)")
        #expect(figures.acknowledged.count > writers * attempts / 3)
        #expect(figures.kills > 0, "no kill ended a writer: the harness proved nothing")
        #expect(figures.holds, "\(figures)")
    }

    /// The negative control: a writer that acknowledges before it commits. The same checks must
    /// catch the loss, or the harness proves nothing.
    @Test func theHarnessCatchesAWriterThatAcknowledgesEarly() async throws {
        // Runs on a thread of its own: long process waits must not starve the cooperative pool.
        try await Task.detachedOnThread {
            let target = crashTargets[3]
            let suite = try Suite()
            for command in target.setup { #expect(try suite.run(command).status == 0) }
            var figures = CrashFigures(store: "bundle, unsafe early acknowledgement", writers: 1)
            for attempt in 0..<3 {
                let key = "rec-unsafe-\(attempt)"
                let child = try Spawned(suite, target.write(key), environment: ["SUITE_TEST_UNSAFE_EARLY_ACK": "1"])
                figures.writes += 1
                let deadline = Date().addingTimeInterval(10)
                while !child.printed.contains("ACK \(key)") && Date() < deadline { usleep(5_000) }
                if child.printed.contains("ACK \(key)") { figures.acknowledged.insert(key) }
                child.kill()
                figures.kills += 1
                _ = child.wait()
            }
            try inspect(suite, target, into: &figures)
            print("negative control — \(figures)")
            #expect(figures.acknowledged.count == 3)
            #expect(figures.lost == 3)
            #expect(!figures.holds)
        }
    }
}

@Suite(.serialized) struct AtomicImportTests {
    static let imports: [(String, String, @Sendable (Int) -> Data, [String], String)] = [
        ("quotes CSV", "quotes.sqlite",
         { n in Data((0..<n).map { "\"Generated quote number \($0) about patience and work\",Author \($0 % 97),gen\($0 % 13)" }.joined(separator: "\n").utf8) },
         ["quotes", "import", "csv"], "quote"),
        ("places GeoJSON", "places.sqlite",
         { n in Data(("{\"type\": \"FeatureCollection\", \"features\": [" + (0..<n).map { i in
             "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [\(13 + Double(i % 1000) / 1000), \(52 + Double(i / 1000) / 1000)]}, \"properties\": {\"name\": \"Place \(i)\", \"type\": \"coffee-shop\"}}"
         }.joined(separator: ",") + "]}").utf8) },
         ["places", "import"], "place"),
        ("bundle todo.txt", "bundle.sqlite",
         { n in Data((0..<n).map { "2026-11-01 Generated errand \($0) @event-\($0 % 50) prep:before" }.joined(separator: "\n").utf8) },
         ["bundle", "import", "--format", "todotxt"], "todo"),
    ]

    /// The rows of `table` in the store `file` (0 before its schema is committed).
    func count(_ suite: Suite, _ file: String, _ table: String) throws -> Int {
        let path = suite.storeFolder.appendingPathComponent(file).path
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        // A store killed before its schema was committed has no table yet: nothing imported.
        guard try queue.read({ try $0.tableExists(table) }) else { return 0 }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table)") ?? 0 }
    }

    @Test(arguments: imports.indices)
    func aKilledImportLeavesAllOrNothingAndARerunSucceeds(index: Int) async throws {
        // Runs on a thread of its own: long process waits must not starve the cooperative pool.
        try await Task.detachedOnThread {
            let (name, file, generate, command, table) = Self.imports[index]
            let size = index == 2 ? 8_000 : 20_000
            let timing = try Suite()
            let input = timing.path("input")
            try generate(size).write(to: URL(fileURLWithPath: input))
            // How long a whole import takes here, so the kill lands in the middle of one.
            let started = Date()
            #expect(try timing.runProcess(command + [input]).status == 0, "\(name)")
            let duration = Date().timeIntervalSince(started)
            #expect(try count(timing, file, table) == size)

            // The kill must land while the import holds the store's write lock (its one
            // transaction is open), or the test proves nothing: another connection's
            // BEGIN IMMEDIATE is refused at once then. Until it does, try again.
            var landedMidWrite = false
            for attempt in 0..<8 where !landedMidWrite {
                let suite = try Suite()
                let path = suite.storeFolder.appendingPathComponent(file).path
                let child = try Spawned(suite, command + [input])
                var busy = false
                let deadline = Date().addingTimeInterval(max(10, duration * 4))
                while child.process.isRunning && Date() < deadline {
                    if Self.writeLockIsHeld(path, table: table) { busy = true; break }
                    usleep(500)
                }
                // Further into the transaction, by less at each attempt; then the lock must
                // still be held (a short write before the import's would have ended by then).
                if busy {
                    usleep(UInt32(duration * 1_000_000 * [0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0, 0][attempt]))
                    busy = Self.writeLockIsHeld(path, table: table)
                }
                child.kill()
                let outcome = child.wait()
                let afterKill = try count(suite, file, table)
                print("atomic import — \(name): \(size) records, full import \(String(format: "%.2f", duration)) s, attempt \(attempt + 1): "
                      + "write lock held \(busy), \(outcome.status == nil ? "killed" : "finished"), records after: \(afterKill)")
                #expect(afterKill == 0 || afterKill == size)
                landedMidWrite = busy && outcome.status == nil && afterKill == 0
                let rerun = try suite.run(command + [input])
                #expect(rerun.status == 0, "\(rerun.stderr)")
                #expect(try count(suite, file, table) == size)
            }
            #expect(landedMidWrite, "no kill landed while \(name) held the write lock")
        }
    }

    /// Whether another connection holds the write lock of a store whose schema is in place (the
    /// import's `table` is committed, so this is not the migration's transaction):
    /// BEGIN IMMEDIATE is refused at once. Only a store already in WAL mode is opened, so the
    /// probe never creates a file or changes a journal.
    static func writeLockIsHeld(_ path: String, table: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path + "-wal") else { return false }
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return false }
        defer { try? queue.close() }
        do {
            try queue.writeWithoutTransaction { db in
                guard try db.tableExists(table) else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no schema yet") }
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
            return false
        } catch let error as DatabaseError {
            return error.resultCode == .SQLITE_BUSY
        } catch {
            return false
        }
    }
}

@Suite struct HostileFileTests {
    /// A read command per store, which opens it.
    static let stores: [(file: String, command: [String], populate: [[String]])] = [
        ("bmm.sqlite", ["bmm", "list"], [["bmm", "new", "Acme"], ["bmm", "set", "vp", "--text", String(repeating: "bread ", count: 3000)]]),
        ("places.sqlite", ["places", "near", "--at", "52.52,13.405"], [["places", "add", "--name", "Desk", "--at", "52.52,13.405"]]),
        ("quotes.sqlite", ["quotes", "categories"], [["quotes", "starter"]]),
        ("bundle.sqlite", ["bundle", "todos"], [["bundle", "add", String(repeating: "errand ", count: 1000), "--before", "bank"]]),
    ]

    enum Hostility: String, CaseIterable { case randomBytes, truncated, empty, foreignSchema, newerSchema, readOnly }

    static var cases: [(Int, Hostility)] { stores.indices.flatMap { index in Hostility.allCases.map { (index, $0) } } }

    @Test(arguments: cases)
    func hostileStoreFilesAreRefusedAndLeftByteForByte(index: Int, hostility: Hostility) throws {
        let store = Self.stores[index]
        let suite = try Suite()
        let path = suite.storeFolder.appendingPathComponent(store.file).path
        try FileManager.default.createDirectory(at: suite.storeFolder, withIntermediateDirectories: true)
        switch hostility {
        case .randomBytes:
            var generator = SystemRandomNumberGenerator()
            try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        case .empty:
            try Data().write(to: URL(fileURLWithPath: path))
        case .foreignSchema:
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO contacts (name) VALUES ('Ada')") }
            try queue.close()
        case .truncated, .newerSchema, .readOnly:
            for command in store.populate { #expect(try suite.run(command).status == 0) }
            if hostility == .truncated {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
            } else if hostility == .newerSchema {
                let queue = try DatabaseQueue(path: path)
                // As a newer suite's migration leaves it: recorded, and counted in user_version.
                try queue.write { db in
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
                    try db.execute(sql: "PRAGMA user_version = 99")
                }
                try queue.close()
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try suite.run(store.command)
        expectFailure(result, status: 74, path)
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before == after, "\(store.file) \(hostility) changed")
        let expected: [Hostility: String] = [
            .randomBytes: "not an SQLite database", .truncated: "truncated", .empty: "empty", .foreignSchema: "another application",
            .newerSchema: "newer version", .readOnly: "read-only",
        ]
        #expect(result.stderr.contains(expected[hostility] ?? "?"), "\(result.stderr)")
    }

    @Test(arguments: stores.indices)
    func aStoreFolderThatIsAFileIsRefused(index: Int) throws {
        var suite = try Suite()
        let file = suite.path("not-a-folder")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: file))
        suite.environment["SUITE_HOME"] = file
        expectFailure(try suite.run(Self.stores[index].command), status: 74, "is a file, not a folder")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("keep me".utf8))
    }

    /// Per store: a command writing a lot, the data it writes, and the store file.
    static let bigWrites: [(file: String, setup: [String], write: [String], input: @Sendable () -> Data)] = [
        ("bmm.sqlite", ["bmm", "new", "Acme"], ["bmm", "set", "vp", "-"], { Data(String(repeating: "A business model section that goes on. ", count: 24_000).utf8) }),
        ("places.sqlite", ["places", "location", "set", "1,1"], ["places", "import", "-"], {
            Data(("{\"type\": \"FeatureCollection\", \"features\": [" + (0..<8000).map { i in
                "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.\(i), 52.5]}, \"properties\": {\"name\": \"Place number \(i) with a long name\"}}"
            }.joined(separator: ",") + "]}").utf8) }),
        ("quotes.sqlite", ["quotes", "starter"], ["quotes", "import", "csv", "-"], {
            Data((0..<20_000).map { "\"A long generated quote number \($0) that fills the disk quickly, padding padding\",Someone \($0)" }.joined(separator: "\n").utf8) }),
        ("bundle.sqlite", ["bundle", "events", "add", "bank"], ["bundle", "import", "-", "--format", "todotxt"], {
            Data((0..<12_000).map { "2026-11-01 A generated errand number \($0) with words @bank prep:before" }.joined(separator: "\n").utf8) }),
    ]

    @Test(arguments: bigWrites.indices)
    func aFullDiskFailsCleanlyAndLosesNothing(index: Int) async throws {
        // Runs on a thread of its own: long process waits must not starve the cooperative pool.
        try await Task.detachedOnThread {
            let store = Self.bigWrites[index]
            let suite = try Suite()
            #expect(try suite.run(store.setup).status == 0)
            let before = try suite.dump(store.file)
            let input = suite.path("input")
            try store.input().write(to: URL(fileURLWithPath: input))
            // A file-size limit (in 512-byte blocks) stands in for a full disk: writes past it fail with EFBIG.
            let limited = try suite.run(["ulimit -f 1200; exec \"$0\" \"$@\" < \"$INPUT\""] + [Suite.binary.path] + store.write,
                                        environment: ["INPUT": input], viaShell: true)
            expectFailure(limited, status: 74, suite.storeFolder.appendingPathComponent(store.file).path)
            #expect(limited.stderr.contains("disk is full") || limited.stderr.contains("I/O error"), "\(limited.stderr)")
            #expect(try suite.dump(store.file) == before)
            // With room again, the same write goes through.
            #expect(try suite.run(store.write, stdin: try Data(contentsOf: URL(fileURLWithPath: input))).status == 0)
        }
    }

    @Test func storeFilesArePrivate() throws {
        let suite = try Suite()
        for command in [["bmm", "new", "A"], ["places", "location", "set", "1,1"], ["quotes", "starter"], ["bundle", "events", "add", "x"]] {
            #expect(try suite.run(command).status == 0)
        }
        for name in ["bmm.sqlite", "places.sqlite", "quotes.sqlite", "bundle.sqlite", "bmm.sqlite.lock"] {
            let mode = try FileManager.default.attributesOfItem(atPath: suite.storeFolder.appendingPathComponent(name).path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(name)")
        }
        let folderMode = try FileManager.default.attributesOfItem(atPath: suite.storeFolder.path)[.posixPermissions] as? NSNumber
        #expect(folderMode?.intValue == 0o700)
    }
}
