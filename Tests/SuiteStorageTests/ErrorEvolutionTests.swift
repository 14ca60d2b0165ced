import Foundation
import Testing

/// The rule by which public errors change (README, "Errors and versions"): the libraries' error
/// enums are exhaustive, so that an app's `switch` learns of a new failure from the compiler;
/// adding, removing or renaming a case is therefore a breaking change. It comes only with a new
/// minor version while the version is 0.x (a new major one from 1.0), recorded in
/// `Fixtures/public-error-cases.txt` and CHANGELOG. Errors that must grow freely are structs with
/// open codes (`SyncError`).
@Suite struct ErrorEvolutionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let record = root.appendingPathComponent("Fixtures/public-error-cases.txt")

    /// The public error types and the files that declare them: each one's cases and those of
    /// the public enums nested in it are what the rule covers.
    static let errorTypes: [(file: String, type: String)] = [
        ("Sources/QuoteCore/QuoteError.swift", "QuoteError"),
        ("Sources/MotivationCore/MotivationError.swift", "MotivationError"),
        ("Sources/BundleCore/BundleError.swift", "BundleError"),
        ("Sources/WorkplaceCore/WorkplaceError.swift", "WorkplaceError"),
        ("Sources/SuiteStorage/StoreError.swift", "StoreError"),
        ("Sources/SuiteHTTP/HTTP.swift", "HTTPClientError"),
        ("Sources/SuiteEnvironment/SuiteEnvironment.swift", "SuiteEnvironmentError"),
        ("Sources/SuitePush/PushSubscription.swift", "PushError"),
        ("Sources/MotivationCore/MailMessage.swift", "AddressProblem"),
        ("Sources/SuiteStorage/TextRule.swift", "TextProblem"),
    ]

    /// Source text without comments and string literals (which may hold braces or `case`).
    static func code(_ text: String) -> String {
        var out = "", index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("//") {
                index = rest.firstIndex(of: "\n") ?? text.endIndex
            } else if rest.hasPrefix("/*") {
                index = rest.range(of: "*/").map(\.upperBound) ?? text.endIndex
            } else if rest.hasPrefix("\"\"\"") {
                let after = text.index(index, offsetBy: 3)
                index = text[after...].range(of: "\"\"\"").map(\.upperBound) ?? text.endIndex
            } else if rest.hasPrefix("\"") {
                var cursor = text.index(after: index)
                while cursor < text.endIndex && text[cursor] != "\"" && text[cursor] != "\n" {
                    cursor = text.index(after: text[cursor] == "\\" ? text.index(after: cursor) : cursor)
                }
                index = cursor < text.endIndex ? text.index(after: cursor) : cursor
                out += "\"\""
            } else {
                out.append(text[index])
                index = text.index(after: index)
            }
        }
        return out
    }

    /// The body of the type `name` declared in `code` (between its braces).
    static func body(of name: String, in code: Substring) -> Substring? {
        guard let declaration = code.range(of: #"public (enum|struct) \#(name)\b[^{]*\{"#, options: .regularExpression) else { return nil }
        var depth = 1, index = declaration.upperBound
        while index < code.endIndex {
            if code[index] == "{" { depth += 1 } else if code[index] == "}" { depth -= 1; if depth == 0 { break } }
            index = code.index(after: index)
        }
        return code[declaration.upperBound..<index]
    }

    /// Each enum's cases, for `type` and the public enums nested in it: lines like
    /// `QuoteError: noQuotes quoteNotFound …` and `QuoteError.SearchProblem: noWords …`.
    static func cases(of type: String, in code: Substring, path: String = "") -> [String] {
        guard let body = body(of: type, in: code) else { return [] }
        let name = path.isEmpty ? type : "\(path).\(type)"
        // Only the body's own level: nested types' braces are skipped.
        var own = "", depth = 0
        for character in body {
            if character == "{" { depth += 1 } else if character == "}" { depth -= 1 } else if depth == 0 { own.append(character) }
        }
        var names: [String] = []
        for line in own.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("case ") else { continue }
            let list = trimmed.dropFirst(5)
            var depth = 0, current = ""
            for character in list {
                if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
                if character == "," && depth == 0 { names.append(current); current = "" } else { current.append(character) }
            }
            names.append(current)
        }
        let caseNames = names.map { item in
            String(item.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }.filter { !$0.isEmpty }.sorted()
        var lines = caseNames.isEmpty ? [] : ["\(name): \(caseNames.joined(separator: " "))"]
        var rest = Substring(own)
        while let nested = rest.range(of: #"public enum [A-Za-z_][A-Za-z0-9_]*"#, options: .regularExpression) {
            let nestedName = String(rest[nested].split(separator: " ").last!)
            lines += cases(of: nestedName, in: body, path: name)
            rest = rest[nested.upperBound...]
        }
        return lines
    }

    /// Every public error type's cases as the sources declare them now.
    static func currentCases() throws -> [String] {
        try errorTypes.flatMap { entry in
            let text = try String(contentsOf: root.appendingPathComponent(entry.file), encoding: .utf8)
            let lines = cases(of: entry.type, in: Substring(code(text)))
            #expect(!lines.isEmpty, "\(entry.type) is declared in \(entry.file)")
            return lines
        }.sorted()
    }

    /// The record: `## VERSION` headings, each followed by the cases of that version.
    static func recorded() throws -> [(version: [Int], cases: [String])] {
        var sections: [(version: [Int], cases: [String])] = []
        for line in try String(contentsOf: record, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("## ") {
                sections.append((line.dropFirst(3).split(separator: ".").compactMap { Int($0) }, []))
            } else if !line.hasPrefix("#"), !line.trimmingCharacters(in: .whitespaces).isEmpty, !sections.isEmpty {
                sections[sections.count - 1].cases.append(String(line))
            }
        }
        return sections.map { ($0.version, $0.cases.sorted()) }
    }

    static func currentVersion() throws -> [Int] {
        let text = try String(contentsOf: root.appendingPathComponent("Sources/SuiteEnvironment/SuiteEnvironment.swift"), encoding: .utf8)
        let found = try #require(text.firstMatch(of: /static let version = "([0-9.]+)"/))
        return found.1.split(separator: ".").compactMap { Int($0) }
    }

    @Test func theScanReadsCasesAsSwiftDoes() {
        let text = """
            /// case inDoc(String)
            public enum SomeError: Error {
                /// A doc comment with a brace {
                case one(String), two(a: Int, b: (Int, Int))
                case three
                var description: String { "case four, { " }
                public enum Nested: Sendable { case x, y }
            }
            """
        #expect(Self.cases(of: "SomeError", in: Substring(Self.code(text))) == ["SomeError: one three two", "SomeError.Nested: x y"])
    }

    @Test func theRecordMatchesTheSourcesAtTheCurrentVersion() throws {
        let sections = try Self.recorded()
        let latest = try #require(sections.last)
        #expect(latest.version == (try Self.currentVersion()),
                "the record's last version is the package's version (SuiteEnvironment.version)")
        let current = try Self.currentCases()
        let added = Set(current).subtracting(latest.cases), removed = Set(latest.cases).subtracting(current)
        #expect(added.isEmpty && removed.isEmpty, """
            public error cases changed (now: \(added.sorted()), before: \(removed.sorted())): a breaking change for apps that \
            switch on them. Add a section with a new minor version (a new major from 1.0) to \
            Fixtures/public-error-cases.txt, set SuiteEnvironment.version to it and say so in CHANGELOG
            """)
    }

    @Test func casesChangeOnlyWithANewMinorOrMajorVersion() throws {
        let sections = try Self.recorded()
        #expect(!sections.isEmpty)
        for (earlier, later) in zip(sections, sections.dropFirst()) {
            #expect(later.version.lexicographicallyPrecedes(earlier.version) == false && later.version != earlier.version)
            guard earlier.cases != later.cases else { continue }
            let major = later.version[0] > earlier.version[0]
            let minor = later.version[0] == earlier.version[0] && later.version[1] > earlier.version[1]
            #expect(major || (later.version[0] == 0 && minor), "cases changed from \(earlier.version) to \(later.version) without a new minor (0.x) or major version")
        }
    }

    /// A public error enum outside the list would escape the rule.
    @Test func everyPublicErrorEnumIsCovered() throws {
        let covered = Set(Self.errorTypes.map(\.type))
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects as? [URL])
        var found: Set<String> = []
        for file in files where file.pathExtension == "swift" && !file.path.contains("/Tools/") {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /public enum ([A-Za-z_][A-Za-z0-9_]*)\s*:[^{]*\bError\b/) { found.insert(String(match.1)) }
        }
        #expect(found.isSubset(of: covered), "not covered by the rule: \(found.subtracting(covered).sorted())")
        #expect(found.count >= 6)
    }
}
