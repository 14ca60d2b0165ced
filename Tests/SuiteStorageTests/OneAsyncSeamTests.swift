import Foundation
import Testing

/// Every store call is written once, synchronously, and `async` code makes it through the store's
/// one seam, `run(_:)`. A public `async` method in a core is one of the few that are `async`
/// by nature (network, or opening a store); a new one that only wraps a synchronous call fails
/// here, so the hand-written twins cannot come back one at a time.
@Suite struct OneAsyncSeamTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What may be `async` in a core, and why.
    static let allowed: Set<String> = [
        "run", // the seam itself (on a store, and static for work that needs no open store)
        "open", // opening: waits for another process's lock and runs migrations
        "books", "works", // QuoteCore: Open Library's answer over the network
        "places", "geocode", "lookUp", // WorkplaceCore: the providers, over the network
    ]

    /// The names of the public functions declared `async` in a source text.
    static func asyncFunctions(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let found = rest.range(of: #"public (static )?func [A-Za-z_][A-Za-z0-9_]*"#, options: .regularExpression) {
            let name = String(rest[found].split(separator: " ").last!)
            // The signature runs to the body's `{` outside parentheses.
            var depth = 0, index = found.upperBound, signature = ""
            while index < rest.endIndex {
                let character = rest[index]
                if character == "(" { depth += 1 } else if character == ")" { depth -= 1 } else if character == "{" && depth == 0 { break }
                signature.append(character)
                index = rest.index(after: index)
            }
            if signature.range(of: #"\)\s*async\b"#, options: .regularExpression) != nil { names.append(name) }
            rest = rest[index...]
        }
        return names
    }

    @Test func theScanFindsAnAsyncTwin() {
        let text = """
            public func todo(_ id: Int) throws(E) -> Todo { fatalError() }
            public func todo(_ id: Int,
                             more: (Int) -> Void) async throws(E) -> Todo { fatalError() }
            public static func open(at url: URL) async throws(E) -> S { fatalError() }
            """
        #expect(Self.asyncFunctions(in: text) == ["todo", "open"])
    }

    @Test(arguments: ["BundleCore", "QuoteCore", "MotivationCore", "WorkplaceCore"])
    func aCoreHasOneAsyncSeam(core: String) throws {
        let folder = Self.root.appendingPathComponent("Sources/\(core)")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL])
            .filter { $0.pathExtension == "swift" }
        #expect(files.count > 5)
        var seams = 0
        for file in files {
            let names = Self.asyncFunctions(in: try String(contentsOf: file, encoding: .utf8))
            seams += names.filter { $0 == "run" }.count
            for name in names where !Self.allowed.contains(name) {
                Issue.record("\(core)/\(file.lastPathComponent): `\(name)` is a public async function; write it once, synchronously, and call it through `run(_:)`")
            }
        }
        #expect(seams == 2, "the store's run(_:) and the static run(_:)")
    }
}
