import Foundation
import SuiteStorage
import Testing
@testable import BundleCore

/// What a round trip through a format must keep: our fields, at the precision the format has.
struct Essentials: Hashable, CustomStringConvertible {
    var uuid: UUID, text: String, event: String?, preposition: Preposition, deadline: String?, status: TodoStatus
    var bundle: UUID?, notes: String

    var description: String { "\(text) [\(event ?? "-") \(preposition) \(deadline ?? "-") \(status) \(bundle?.uuidString.prefix(8) ?? "-") '\(notes)']" }
}

func essentials(_ store: BundleStore, includeDropped: Bool = true) throws -> Set<Essentials> {
    let bundles = Dictionary(uniqueKeysWithValues: (try store.openBundles() + store.review()).map { ($0.id, $0.uuid) })
    return Set(try store.todos(includeFinished: true).filter { includeDropped || $0.status != .dropped }.map {
        Essentials(uuid: $0.uuid, text: $0.text, event: $0.eventName, preposition: $0.preposition, deadline: $0.deadline?.description,
                   status: $0.status, bundle: $0.bundleID.flatMap { bundles[$0] }, notes: $0.notes)
    })
}

/// A store with every kind of todo: loose, each preposition, day and time deadlines, notes with
/// characters each format must escape, done, dropped, in an open bundle, in a finished bundle.
func richStore() throws -> BundleStore {
    let clock = TestClock()
    let store = try freshStore(clock: clock)
    try store.addTodo("Renew passport", event: nil, preposition: .none)
    try store.addTodo("Get the agreement signed; bring 2 copies, a pen", event: "go to Eastern branch", preposition: .before,
                      deadline: try Deadline.parse("2026-12-01", timeZone: utc), notes: "Ask for Ms. Li\nRoom 4, floor 2; \\ desk")
    try store.addTodo("Pick up badge", event: "go to Eastern branch", preposition: .before,
                      deadline: try Deadline.parse("2026-11-30T16:45", timeZone: utc))
    try store.addTodo("Buy dog food", event: "go to Eastern branch", preposition: .when)
    try store.addTodo("Water the plant — the big one", event: "come back from work", preposition: .after)
    try store.addTodo("Call mum", event: "come back from work", preposition: .none)
    try store.addTodo("Check-in with the co-op", event: "walk 50% of the way", preposition: .before)
    let finished = try store.checkIn(event: "come back from work", direction: .justFinished, todoIDs: [5], timeZone: utc)
    try store.markDone(5, in: finished.id)
    try store.complete(finished.id)
    clock.advance(60)
    try store.finishTodo(6, as: .dropped)
    _ = try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [3], title: "Eastern run", timeZone: utc)
    try store.addTodo(String(repeating: "A very long todo text that must be folded ", count: 4), event: "go to Eastern branch", preposition: .before)
    return store
}

@Suite struct InterchangeRoundTripTests {
    @Test(arguments: [InterchangeFormat.taskwarrior, .ics, .todotxt])
    func exportImportKeepsOurData(format: InterchangeFormat) throws {
        let source = try richStore()
        let data = try source.export(format, timeZone: utc)
        let target = try freshStore()
        let summary = try target.importData(data, format: format, timeZone: utc)
        let keepsDropped = format != .todotxt
        #expect(summary.created == (keepsDropped ? 8 : 7))
        let expected = try essentials(source, includeDropped: keepsDropped)
        let actual = try essentials(target)
        #expect(actual == expected, "\(actual.subtracting(expected)) vs \(expected.subtracting(actual))")
        // Importing the same file again updates, never duplicates.
        let again = try target.importData(data, format: format, timeZone: utc)
        #expect(again.created == 0)
        #expect(try essentials(target) == expected)
        // And the export of the copy is the export of the original.
        if format != .ics {  // iCalendar's DTSTAMP is the export time
            #expect(String(decoding: try target.export(format, timeZone: utc), as: UTF8.self).count > 0)
        }
    }

    /// An iCalendar file on disk is read VTODO by VTODO; it imports exactly as the same bytes do
    /// (bundled todos included), and a missing file is a malformed import.
    @Test func anICalendarFileImportsAsItsBytesDo() throws {
        let source = try richStore()
        let data = try source.export(.ics, timeZone: utc)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("todos-\(UUID().uuidString).ics")
        defer { try? FileManager.default.removeItem(at: url) }
        try data.write(to: url)
        let fromBytes = try freshStore(), fromFile = try freshStore()
        let bytesSummary = try fromBytes.importData(data, format: .ics, timeZone: utc)
        let fileSummary = try fromFile.importFile(at: url, format: .ics, timeZone: utc)
        #expect(fileSummary == bytesSummary)
        #expect(fileSummary.created == 8)
        #expect(try essentials(fromFile) == essentials(source))
        #expect(try fromFile.export(.json, timeZone: utc) == fromBytes.export(.json, timeZone: utc))
        #expect(throws: BundleError.self) { try fromFile.importFile(at: url.appendingPathExtension("missing"), format: .ics, timeZone: utc) }
        // Other formats on disk go through the same reading as their bytes.
        let text = try source.export(.todotxt, timeZone: utc)
        try text.write(to: url)
        let todoTxt = try freshStore()
        #expect(try todoTxt.importFile(at: url, format: .todotxt, timeZone: utc).created == 7)
        // A Taskwarrior array on disk is read task by task, as its bytes are.
        let tasks = try source.export(.taskwarrior, timeZone: utc)
        try tasks.write(to: url)
        let taskFile = try freshStore(), taskBytes = try freshStore()
        #expect(try taskFile.importFile(at: url, format: .taskwarrior, timeZone: utc) == taskBytes.importData(tasks, format: .taskwarrior, timeZone: utc))
        #expect(try essentials(taskFile) == essentials(taskBytes))
        #expect(try taskFile.export(.json, timeZone: utc) == taskBytes.export(.json, timeZone: utc))
    }

    @Test func suiteJSONRoundTripsByteForByte() throws {
        let source = try richStore()
        try source.addAlias("eastern", to: "go to Eastern branch")
        let first = try source.export(.json, timeZone: utc)
        let target = try freshStore()
        try target.importData(first, format: .json, timeZone: utc)
        let second = try target.export(.json, timeZone: utc)
        #expect(String(decoding: first, as: UTF8.self) == String(decoding: second, as: UTF8.self))
        #expect(try target.currentBundle().title == "Eastern run")
        #expect(try target.event(matching: "EASTERN").name == "go to Eastern branch")
    }

    @Test func unknownTaskwarriorFieldsAreKept() throws {
        let json = #"""
        [{"id":3,"uuid":"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b","description":"Fix the fence","status":"pending",
          "entry":"20261101T080000Z","modified":"20261102T080000Z","project":"house","tags":["diy","weekend"],
          "priority":"H","urgency":7.8,"estimate":"2h","depends":["1a2b3c4d-0000-4000-8000-000000000000"]}]
        """#
        let store = try freshStore()
        try store.importData(Data(json.utf8), format: .taskwarrior, timeZone: utc)
        let todo = try store.todo(1)
        #expect(todo.text == "Fix the fence")
        #expect(todo.foreignFields["project"] == .string("house"))
        #expect(todo.foreignFields["estimate"] == .string("2h"))
        #expect(todo.foreignFields["id"] == nil)
        #expect(todo.foreignFields["urgency"] == nil)
        let exported = try JSONDecoder().decode([[String: JSONValue]].self, from: try store.export(.taskwarrior, timeZone: utc))
        #expect(exported.first?["tags"] == .array([.string("diy"), .string("weekend")]))
        #expect(exported.first?["priority"] == .string("H"))
        #expect(exported.first?["depends"] == .array([.string("1a2b3c4d-0000-4000-8000-000000000000")]))
    }

    @Test func vtodoLinesAreFoldedAt75OctetsAndTextIsEscaped() throws {
        let store = try richStore()
        let text = String(decoding: try store.export(.ics, timeZone: utc), as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        #expect(lines.contains { $0.hasPrefix(" ") })
        #expect(text.contains("SUMMARY:Get the agreement signed\\; bring 2 copies\\, a pen"))
        #expect(text.contains("DESCRIPTION:Ask for Ms. Li\\nRoom 4\\, floor 2\\; \\\\ desk"))
        #expect(text.contains("DUE;VALUE=DATE:20261201"))
        #expect(text.contains("STATUS:IN-PROCESS"))
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"))
        #expect(ICalendarFormat.fold(String(repeating: "é", count: 60)).components(separatedBy: "\r\n ").allSatisfy { $0.utf8.count <= 75 })
    }

    @Test func todoTxtLinesFollowTheFormat() throws {
        let store = try richStore()
        let lines = String(decoding: try store.export(.todotxt, timeZone: utc), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines.contains { $0.hasPrefix("x 2026-11-18 2026-11-18 Water the plant — the big one @come-back-from-work prep:after bundle:") })
        #expect(lines.contains { $0.contains("@go-to-Eastern-branch prep:before due:2026-12-01") })
        #expect(lines.contains { $0.contains("@walk-50%25-of-the-way") })
        #expect(!lines.contains { $0.contains("Call mum") })
    }

    @Test func todoTxtFromElsewhereImports() throws {
        let text = """
            (A) 2026-11-01 Call the plumber @home +house due:2026-11-25
            x 2026-11-10 2026-11-02 Post the letter @go-to-town
            Plain line with no date
            """
        let store = try freshStore()
        let summary = try store.importData(Data(text.utf8), format: .todotxt, timeZone: utc)
        #expect(summary.created == 3)
        let todos = try store.todos(includeFinished: true)
        #expect(todos.map(\.text).sorted() == ["Call the plumber +house", "Plain line with no date", "Post the letter"])
        #expect(todos.first { $0.text.hasPrefix("Call") }?.foreignFields["priority"] == .string("A"))
        #expect(todos.first { $0.text.hasPrefix("Post") }?.status == .done)
        #expect(todos.first { $0.text.hasPrefix("Post") }?.eventName == "go to town")
        // Lines without id: get stable ids, so a second import updates.
        #expect(try store.importData(Data(text.utf8), format: .todotxt, timeZone: utc).created == 0)
    }
}

@Suite struct MalformedImportTests {
    static let cases: [(InterchangeFormat, String, String)] = [
        (.taskwarrior, "", "the file is empty"),
        (.taskwarrior, "[{\"uuid\": ", "invalid JSON"),
        (.todotxt, "\n  \n", "the file is empty"),
        (.taskwarrior, "[{\"uuid\": \"x\"}]", "missing or invalid 'uuid'"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"}]", "missing 'description'"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"a\", \"status\": \"sleeping\", \"entry\": \"20261101T080000Z\"}]", "unknown status 'sleeping'"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"a\", \"status\": \"pending\", \"entry\": \"yesterday\"}]", "'entry' is not a time"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"a\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\", \"due\": \"20260230T000000Z\"}]", "'due' is not a time"),
        (.taskwarrior, "[1, 2]", "item 1 is not an object"),
        (.taskwarrior, "{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"good\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"}\nnot json\n",
         "line 2: not a JSON object"),
        (.taskwarrior, "{\"a\": 1}\nnot json\n", "line 1: task 1: missing or invalid 'uuid'"),
        (.taskwarrior, "{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"good\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"}\n\n"
         + "{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"again\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"}\n",
         "the id appears twice"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"}]", "the todo text is empty"),
        (.ics, "BEGIN:VTODO\r\nEND:VTODO\r\n", "does not start with BEGIN:VCALENDAR"),
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:x\r\nEND:VTODO\r\nEND:VCALENDAR\r\n", "has no UID"),
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:x\r\nDUE;VALUE=DATE:20260230\r\nEND:VTODO\r\nEND:VCALENDAR\r\n", "is not a date"),
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nno colon here\r\nEND:VTODO\r\nEND:VCALENDAR\r\n", "line 3"),
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nEND:VCALENDAR\r\n", "does not close"),
        // Read VTODO by VTODO, a late problem still leaves the store as it was.
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:good\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:7f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:also good\r\nEND:VTODO\r\n", "does not end with END:VCALENDAR"),
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:good\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:again\r\nEND:VTODO\r\nEND:VCALENDAR\r\n", "the id appears twice"),
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:good\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:8f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:\r\nEND:VTODO\r\nEND:VCALENDAR\r\n", "the todo text is empty"),
        (.ics, "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\r\nSUMMARY:good\r\nEND:VTODO\r\nEND:VCALENDAR\r\nBEGIN:VCALENDAR\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", "is never closed"),
        (.ics, "  \r\n\r\n", "the file is empty"),
        (.todotxt, "2026-02-30 Impossible day\n", "line 1"),
        (.todotxt, "fine line\nanother due:someday\n", "line 2"),
        (.todotxt, "x 2026-11-01\n", "no text"),
        (.todotxt, "task id:not-a-uuid\n", "is not a UUID"),
        // Read task by task and line by line, a late problem still leaves the store as it was.
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"good\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"},\n 7]",
         "item 2 is not an object"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"good\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"}", "invalid JSON"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"good\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"},"
         + "{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"again\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\"}]",
         "the id appears twice"),
        (.todotxt, "fine line\nanother fine line\nx 2026-11-01\n", "line 3"),
        (.taskwarrior, "[{\"uuid\": \"6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5b\", \"description\": \"a\", \"status\": \"pending\", \"entry\": \"20261101T080000Z\", \"bundle_links\": \"javascript:alert(1)\"}]",
         "'bundle_links' holds 'javascript:alert(1)', which is not a link"),
        (.json, "{\"schema\": \"suite-bundle/9\", \"events\": [], \"todos\": [], \"bundles\": []}", "schema is 'suite-bundle/9'"),
        (.json, "{\"schema\": \"suite-bundle/1\"}", "missing field 'events'"),
    ]

    @Test(arguments: cases.indices)
    func aMalformedFileImportsNothing(index: Int) throws {
        let (format, text, expected) = Self.cases[index]
        let store = try richStore()
        let before = try store.export(.json, timeZone: utc)
        #expect {
            try store.importData(Data(text.utf8), format: format, timeZone: utc)
        } throws: { error in
            guard case .malformedImport = error as? BundleError else { return false }
            return (error as? BundleError)?.description.contains(expected) == true
        }
        #expect(try store.export(.json, timeZone: utc) == before)
    }

    @Test func invalidUTF8IsMalformedInEveryFormat() throws {
        for format in InterchangeFormat.allCases {
            let store = try freshStore()
            #expect(throws: (any Error).self) { try store.importData(Data([0xFF, 0xFE, 0x41]), format: format, timeZone: utc) }
            #expect(try store.todos(includeFinished: true).isEmpty)
        }
    }

    @Test func aFileWithOneBadTodoAmongGoodOnesImportsNone() throws {
        let good = try richStore().export(.todotxt, timeZone: utc)
        let bad = good + Data("x 2026-11-01\n".utf8)
        let store = try freshStore()
        #expect(throws: (any Error).self) { try store.importData(bad, format: .todotxt, timeZone: utc) }
        #expect(try store.todos(includeFinished: true).isEmpty)
        #expect(try store.events().isEmpty)
    }
}

/// Suite JSON carries events, aliases, bundle titles and icons besides todos: every field goes
/// through the same text rule as the store's own operations, and a refused one names its record.
@Suite struct ImportedFieldRuleTests {
    typealias Edit = @Sendable (inout [String: Any]) -> Void

    static let cases: [(String, Edit, String)] = [
        ("event name with OSC", { doc in edit(&doc, "events", 0) { $0["name"] = "go\u{1B}]0;pwned\u{7}" } },
         "event 1: the event phrase holds the control character U+001B"),
        ("alias with a newline", { doc in edit(&doc, "events", 0) { $0["aliases"] = ["a\nsuite: forged"] } },
         "event 1: the alias holds a line break"),
        ("icon with an escape", { doc in edit(&doc, "bundles", 0) { $0["icon"] = "\u{1B}[5m" } },
         "the icon holds the control character U+001B"),
        ("icon of 100,000 characters", { doc in edit(&doc, "bundles", 0) { $0["icon"] = String(repeating: "x", count: 100_000) } },
         "the icon is 100000 characters long; at most 8 are allowed"),
        ("bundle title with NUL", { doc in edit(&doc, "bundles", 0) { $0["title"] = "run\u{0}hidden" } },
         "the bundle title holds the control character U+0000"),
        ("todo text with BEL", { doc in edit(&doc, "todos", 0) { $0["text"] = "ring\u{7}" } },
         "todo 1 ("),
        ("note with a noncharacter", { doc in edit(&doc, "todos", 0) { $0["notes"] = "a\u{FFFF}" } },
         "the note holds the noncharacter U+FFFF"),
    ]

    static func edit(_ document: inout [String: Any], _ key: String, _ index: Int, _ change: (inout [String: Any]) -> Void) {
        guard var list = document[key] as? [[String: Any]], list.indices.contains(index) else { return }
        change(&list[index])
        document[key] = list
    }

    /// `document` as JSON: with its keys sorted, as Suite writes it (read todo by todo), or with
    /// the todos first (read whole).
    static func serialize(_ document: [String: Any], todosFirst: Bool) throws -> Data {
        guard todosFirst else { return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]) }
        var text = "{"
        for key in ["todos", "bundles", "events", "schema"] where document[key] != nil {
            let value = try JSONSerialization.data(withJSONObject: document[key]!, options: [.fragmentsAllowed])
            text += (text == "{" ? "" : ", ") + "\"\(key)\": " + String(decoding: value, as: UTF8.self)
        }
        return Data((text + "}").utf8)
    }

    @Test(arguments: cases.indices, [false, true])
    func aRefusedFieldImportsNothingAndSaysWhere(index: Int, todosFirst: Bool) throws {
        let (name, change, expected) = Self.cases[index]
        let exported = try richStore().export(.json, timeZone: utc)
        var document = try #require(try JSONSerialization.jsonObject(with: exported) as? [String: Any])
        change(&document)
        let data = try Self.serialize(document, todosFirst: todosFirst)
        #expect(try SuiteJSONFormat.StreamReader(JSONArrayStream(data: data, arrayKeys: ["todos"], memberLimit: BundleStore.suiteJSONMemberLimit)) != nil || todosFirst,
                "\(name): a sorted file is read todo by todo")
        #expect(data != exported, "\(name): the edit changed nothing")
        let store = try freshStore()
        #expect {
            try store.importData(data, format: .json, timeZone: utc)
        } throws: { error in
            guard case .malformedImport = error as? BundleError else { return false }
            return (error as? BundleError)?.description.contains(expected) == true
        }
        #expect(try store.todos(includeFinished: true).isEmpty, "\(name)")
        #expect(try store.events().isEmpty, "\(name)")
    }

    @Test func textAndNotesArriveWithLineFeeds() throws {
        let store = try freshStore()
        let todo = try store.addTodo("one\r\ntwo\rthree", event: nil, preposition: .none, notes: "a\rb")
        #expect(todo.text == "one\ntwo\nthree")
        #expect(todo.notes == "a\nb")
    }
}

/// Suite JSON is read todo by todo when its events, bundles and schema come first (as Suite
/// writes it): every check still runs, and a problem late in the file leaves the store as it was.
@Suite struct SuiteJSONStreamTests {
    typealias Edit = @Sendable (inout [String: Any]) -> Void

    static func todos(_ document: inout [String: Any], _ change: (inout [[String: Any]]) -> Void) {
        var list = document["todos"] as? [[String: Any]] ?? []
        change(&list)
        document["todos"] = list
    }

    static let cases: [(String, Edit, String)] = [
        ("the last todo has a number for text", { doc in todos(&doc) { $0[$0.count - 1]["text"] = 7 } }, "wrong type at todos[7].text"),
        ("the first todo again at the end", { doc in todos(&doc) { $0.append($0[0]) } }, "todo 9 ("),
        ("a bundle's todo is not in the file", { doc in
            let held = ((doc["bundles"] as? [[String: Any]])?.flatMap { ($0["items"] as? [[String: Any]]) ?? [] }.compactMap { $0["todo"] as? String }) ?? []
            todos(&doc) { $0.removeAll { held.contains(($0["uuid"] as? String) ?? "") } }
        }, "which the file does not hold"),
        ("a todo says it is in a bundle that does not hold it", { doc in
            let bundle = (doc["bundles"] as? [[String: Any]])?.first?["uuid"] as? String
            todos(&doc) { $0[0]["status"] = "in-bundle"; $0[0]["bundle"] = bundle }
        }, "which does not hold it as open"),
    ]

    @Test(arguments: cases.indices, [false, true])
    func aLateProblemImportsNothing(index: Int, todosFirst: Bool) throws {
        let (name, change, expected) = Self.cases[index]
        let exported = try richStore().export(.json, timeZone: utc)
        var document = try #require(try JSONSerialization.jsonObject(with: exported) as? [String: Any])
        change(&document)
        let data = try ImportedFieldRuleTests.serialize(document, todosFirst: todosFirst)
        let store = try freshStore()
        #expect {
            try store.importData(data, format: .json, timeZone: utc)
        } throws: { error in
            (error as? BundleError)?.description.contains(expected) == true
        }
        #expect(try store.todos(includeFinished: true).isEmpty, "\(name)")
        #expect(try store.events().isEmpty, "\(name)")
    }

    @Test func aTruncatedFileImportsNothing() throws {
        let exported = try richStore().export(.json, timeZone: utc)
        let store = try freshStore()
        #expect(throws: BundleError.self) { try store.importData(exported.dropLast(3), format: .json, timeZone: utc) }
        #expect(try store.todos(includeFinished: true).isEmpty)
    }

    /// Read from a file todo by todo, or whole when the todos come first: the same store.
    @Test func aFileInEitherOrderGivesTheSameStore() throws {
        let source = try richStore()
        try source.addAlias("eastern", to: "go to Eastern branch")
        let exported = try source.export(.json, timeZone: utc)
        let document = try #require(try JSONSerialization.jsonObject(with: exported) as? [String: Any])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for todosFirst in [false, true] {
            let url = folder.appendingPathComponent("export-\(todosFirst).json")
            let data = try ImportedFieldRuleTests.serialize(document, todosFirst: todosFirst)
            try data.write(to: url)
            #expect(try (SuiteJSONFormat.StreamReader(JSONArrayStream(data: data, arrayKeys: ["todos"], memberLimit: BundleStore.suiteJSONMemberLimit)) == nil) == todosFirst)
            let target = try freshStore()
            let summary = try target.importFile(at: url, format: .json, timeZone: utc)
            #expect(summary.created == 8 && summary.bundles == 2, "\(summary)")
            #expect(try target.export(.json, timeZone: utc) == exported, "todos first: \(todosFirst)")
            #expect(try target.currentBundle().title == "Eastern run")
        }
    }
}

/// Exports are written todo by todo: the pieces make the same document, byte for byte what an
/// encoder writes for the whole of it.
@Suite struct StreamedExportTests {
    func store() throws -> BundleStore {
        let store = try richStore()
        try store.addTodo("With links", event: "go out", preposition: .before, links: ["https://example.com/a", "https://example.org/b"])
        try store.addTodo("No links", event: nil, preposition: .none)
        try store.addTodo("A link too", event: nil, preposition: .none, links: ["https://example.net/c"])
        try store.write { db in
            try db.execute(sql: #"UPDATE todo SET foreign_fields = '{"tags":[],"o":{},"n":{"a":[1,[]]}}' WHERE id = 2"#)
        }
        return store
    }

    @Test(arguments: InterchangeFormat.allCases)
    func thePiecesMakeTheDocument(format: InterchangeFormat) throws {
        let store = try store()
        var pieces: [Data] = []
        try store.export(format, timeZone: utc) { pieces.append($0) }
        let whole = try store.export(format, timeZone: utc)
        let joined = pieces.reduce(Data(), +)
        if format == .ics {
            // DTSTAMP is the time of the export.
            let strip = { (data: Data) in String(decoding: data, as: UTF8.self).split(separator: "\r\n").filter { !$0.hasPrefix("DTSTAMP:") } }
            #expect(strip(joined) == strip(whole))
        } else {
            #expect(joined == whole)
        }
        #expect(pieces.count >= 10, "\(pieces.count) pieces")
    }

    @Test func suiteJSONIsWhatAnEncoderWritesForTheWholeDocument() throws {
        let store = try store()
        let exported = try store.export(.json, timeZone: utc)
        let file = try SuiteJSONFormat.makeDecoder().decode(SuiteJSONFormat.File.self, from: exported)
        #expect(file.todos.count == 11 && file.todos.contains { $0.foreignFields?["tags"] == .array([]) })
        #expect(try SuiteJSONFormat.makeEncoder().encode(file) + Data("\n".utf8) == exported)
        let tasks = try JSONDecoder().decode([JSONValue].self, from: store.export(.taskwarrior, timeZone: utc))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        #expect(try encoder.encode(tasks) + Data("\n".utf8) == store.export(.taskwarrior, timeZone: utc))
        // Each todo's links, read beside the todos in the same order, are its own.
        func linksOf(_ text: String) -> JSONValue? {
            for case .object(let task) in tasks where task["description"] == .string(text) { return task["bundle_links"] }
            return .null
        }
        #expect(linksOf("With links") == .string("https://example.com/a https://example.org/b"))
        #expect(linksOf("No links") == nil)
        #expect(linksOf("A link too") == .string("https://example.net/c"))
    }

    @Test func aFailingWriterStopsTheExportWithItsOwnError() throws {
        struct Full: Error, Equatable {}
        let store = try store()
        var written = 0
        #expect(throws: Full()) {
            try store.export(.json, timeZone: utc) { _ in
                written += 1
                if written == 3 { throw Full() }
            }
        }
        #expect(written == 3)
    }
}

@Suite struct FormatDetectionTests {
    /// A store with many events writes its schema's name past the first 4 KiB of the file.
    @Test func suiteJSONWithManyEventsIsSuiteJSON() throws {
        let store = try freshStore()
        for index in 0..<150 { try store.addTodo("Todo \(index)", event: "event number \(index)", preposition: .before, allowNewEvent: true) }
        let exported = try store.export(.json, timeZone: utc)
        #expect(!String(decoding: exported.prefix(4096), as: UTF8.self).contains("suite-bundle/"))
        #expect(InterchangeFormat.detect(name: "backup.json", head: exported.prefix(4096)) == .json)
        #expect(InterchangeFormat.detect(name: nil, head: Data("{\"todos\": []}".utf8)) == .json)
        #expect(InterchangeFormat.detect(name: "t.json", head: Data("{\"uuid\": \"x\", \"description\": \"a\"}".utf8)) == .taskwarrior)
        #expect(InterchangeFormat.detect(name: "t.json", head: Data("[{\"uuid\": \"x\"}]".utf8)) == .taskwarrior)
        let target = try freshStore()
        #expect(try target.importData(exported, format: .json, timeZone: utc).created == 150)
    }
}
