import BundleCore
import Foundation
import Testing

/// Our todo.txt export read by pytodotxt, a todo.txt parser nobody on the project wrote: words of
/// a todo's text that todo.txt tools act on (`t:` threshold, `rec:` recurrence, `pri:` and a
/// leading `(A)` priority, `h:` hidden, `due:`, `@context`) are inert, only Suite's own metadata is
/// seen, the words stay readable, and the export imports back to the same text (issue 38, §2).
@Suite(.enabled(if: Readers.todoTxtEnabled, "needs Python with pytodotxt (.ci/run installs it)"))
struct TodoTxtFromPythonTests {
    static let utc = TimeZone(identifier: "UTC") ?? .current
    /// The keys Suite writes as its metadata.
    static let ours: Set<String> = ["prep", "due", "id", "bundle", "note", "text"]

    static let texts = [
        "Call the bank t:2026-01-01 rec:1w pri:A h:1 about due:2026-01-05 @ctx +proj",
        "(A) at start of the text",
        "Renew id:x the pass at 10:30",
        "Water the plant +garden",
        "Read https://example.org/lease first",
    ]

    @Test func pytodotxtSeesOnlySuitesOwnMetadataAndReadableWords() throws {
        let store = try BundleStore.inMemory()
        var todos: [Todo] = []
        for (index, text) in Self.texts.enumerated() {
            let deadline: Deadline? = index == 0 ? .day(year: 2026, month: 12, day: 1) : nil
            todos.append(try store.addTodo(text, event: "go to the bank", preposition: .before, deadline: deadline, allowNewEvent: true))
        }
        let data = try store.export(.todotxt, timeZone: Self.utc)
        let seen = try Readers.read("todotxt", data)
        let tasks = try #require(seen["tasks"] as? [[String: Any]])
        try #require(tasks.count == todos.count, "\(String(decoding: data, as: UTF8.self))")
        for (todo, task) in zip(todos, tasks) {
            let line = String(describing: task)
            #expect(task["priority"] is NSNull, "a priority: \(line)")
            let attributes = try #require(task["attributes"] as? [String: [String]])
            #expect(Set(attributes.keys).isSubset(of: Self.ours), "attributes other than Suite's own: \(line)")
            for key in ["t", "rec", "pri", "h", "10"] { #expect(attributes[key] == nil, "\(key): \(line)") }
            #expect(attributes["due"] == todo.deadline.map { [$0.description] }, "due: \(line)")
            #expect(attributes["id"] == [todo.uuid.uuidString.lowercased()], "\(line)")
            #expect(task["contexts"] as? [String] == ["go-to-the-bank"], "contexts: \(line)")
            // Readable: the description starts with the text's words, made inert by percent-encoding only.
            let description = try #require(task["description"] as? String)
            #expect((description.removingPercentEncoding ?? "").hasPrefix(todo.text), "\(description)")
        }
        // The link and the project stay words a person reads as they are.
        #expect((tasks[3]["projects"] as? [String]) == ["garden"])
        #expect((tasks[4]["description"] as? String)?.hasPrefix("Read https://example.org/lease first") == true)

        // Our own export imports back to the same texts, and exports again byte for byte.
        let copy = try BundleStore.inMemory()
        try copy.importData(data, format: .todotxt, timeZone: Self.utc)
        #expect(try copy.todos(includeFinished: true).map(\.text) == Self.texts)
        #expect(try copy.export(.todotxt, timeZone: Self.utc) == data)
    }
}
