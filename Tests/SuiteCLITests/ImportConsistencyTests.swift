import Foundation
import Testing

/// §6 of issue 14: a file whose records contradict each other is bad data (exit 65) naming the
/// record, and nothing of it is imported.
@Suite struct ImportConsistency {
    /// A Suite JSON export with one open bundle of two todos, as a mutable JSON object.
    static func bundleDocument() throws -> [String: Any] {
        let donor = try Suite()
        defer { try? FileManager.default.removeItem(at: donor.folder) }
        #expect(try donor.run("bundle", "add", "Pack lunch", "--before", "leave home").status == 0)
        #expect(try donor.run("bundle", "add", "Take keys", "--before", "leave home").status == 0)
        #expect(try donor.run("bundle", "checkin", "leave home", "--about-to", "--all").status == 0)
        let exported = try donor.run("bundle", "export", "--format", "json")
        #expect(exported.status == 0)
        return try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
    }

    /// Each contradiction, made from the good document, with what the message must say.
    static let cases: [(name: String, expect: String, mutate: @Sendable (inout [String: Any]) -> Void)] = [
        ("the same todo twice in one bundle", "holds todo", { document in
            var bundles = document["bundles"] as? [[String: Any]] ?? []
            var items = bundles[0]["items"] as? [[String: Any]] ?? []
            items[1]["todo"] = items[0]["todo"]
            bundles[0]["items"] = items
            document["bundles"] = bundles
        }),
        ("one todo open in two bundles", "open in it and in bundle 1", { document in
            var bundles = document["bundles"] as? [[String: Any]] ?? []
            var second = bundles[0]
            second["uuid"] = UUID().uuidString
            bundles.append(second)
            document["bundles"] = bundles
        }),
        ("one bundle id twice", "the same id as bundle 1", { document in
            var bundles = document["bundles"] as? [[String: Any]] ?? []
            bundles.append(bundles[0])
            document["bundles"] = bundles
        }),
        ("an open todo in a completed bundle", "the bundle is completed", { document in
            var bundles = document["bundles"] as? [[String: Any]] ?? []
            bundles[0]["status"] = "completed"
            document["bundles"] = bundles
        }),
        ("two events under one name", "already names event 1", { document in
            var events = document["events"] as? [[String: Any]] ?? []
            var second = events[0]
            second["name"] = "Leave  HOME"
            second["aliases"] = [String]()
            events.append(second)
            document["events"] = events
        }),
        ("an alias that is another event's name", "already names event 1", { document in
            var events = document["events"] as? [[String: Any]] ?? []
            var second = events[0]
            second["name"] = "go out"
            second["aliases"] = ["leave home"]
            events.append(second)
            document["events"] = events
        }),
        ("a todo in a bundle that does not hold it", "does not hold it as open", { document in
            var bundles = document["bundles"] as? [[String: Any]] ?? []
            var items = bundles[0]["items"] as? [[String: Any]] ?? []
            items.removeLast()
            bundles[0]["items"] = items
            document["bundles"] = bundles
        }),
    ]

    @Test func theGoodDocumentImports() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let file = suite.path("good.json")
        try JSONSerialization.data(withJSONObject: try Self.bundleDocument()).write(to: URL(fileURLWithPath: file))
        let result = try suite.run("bundle", "import", "--format", "json", file)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try suite.run("bundle", "current").stdout.contains("Take keys"))
    }

    @Test(arguments: cases.indices)
    func aContradictionIsExit65AndImportsNothing(index: Int) throws {
        let item = Self.cases[index]
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        #expect(try suite.run("bundle", "add", "Already here").status == 0)
        var document = try Self.bundleDocument()
        item.mutate(&document)
        let file = suite.path("bad.json")
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: file))
        let before = try suite.dump("bundle.sqlite")
        let result = try suite.run("bundle", "import", "--format", "json", file)
        expectFailure(result, status: 65, item.expect)
        #expect(result.stderr.contains("bundle ") || result.stderr.contains("event "), "\(item.name): the message names the record")
        #expect(try suite.dump("bundle.sqlite") == before, "\(item.name) changed the store")
    }
}
