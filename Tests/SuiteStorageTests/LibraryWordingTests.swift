import Foundation
import Testing

/// The libraries speak to apps: no text in them may tell a person to run a command or pass an
/// option of the `suite` command-line tool (the CLI adds such hints where it reports errors).
@Suite struct LibraryWordingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let libraries = ["SuiteStorage", "MotivationCore", "WorkplaceCore", "QuoteCore", "BundleCore"]

    /// Every string literal in a library's Swift sources, with its file and line (comments are
    /// left out; they may show command lines as examples).
    static func literals() throws -> [(place: String, text: String)] {
        var found: [(String, String)] = []
        let literal = try Regex(#""(?:[^"\\]|\\.)*""#)
        for library in libraries {
            let folder = root.appendingPathComponent("Sources").appendingPathComponent(library)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            for file in files {
                var inMultiline = false
                for (number, line) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let place = "\(library)/\(file.lastPathComponent):\(number + 1)"
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix("\"\"\"") || trimmed.hasSuffix("\"\"\"") && !trimmed.hasPrefix("//") {
                        let quotes = line.components(separatedBy: "\"\"\"").count - 1
                        if quotes % 2 == 1 { inMultiline.toggle() }
                        continue
                    }
                    if inMultiline { found.append((place, String(line))); continue }
                    if trimmed.hasPrefix("//") { continue }
                    for match in line.matches(of: literal) { found.append((place, String(line[match.range]))) }
                }
            }
        }
        return found
    }

    @Test func noLibraryTextNamesACommandOrAnOption() throws {
        let all = try Self.literals()
        #expect(all.count > 300, "the scan found too few literals (\(all.count)): is the path right?")
        let command = try Regex(#"(^|[\s'"(])suite (bmm|places|quotes|bundle|check|sync)\b"#)
        let option = try Regex(#"(^|[\s'"(])--[a-z][a-z-]+"#)
        let offenders = all.filter { $0.text.contains(command) || $0.text.contains(option) }
        #expect(offenders.isEmpty, "\(offenders.map { "\($0.place): \($0.text)" }.joined(separator: "\n"))")
    }

    @Test func theScanFindsWhatItLooksFor() throws {
        // The check above must be able to fail: these are the shapes it refuses.
        let command = try Regex(#"(^|[\s'"(])suite (bmm|places|quotes|bundle|check|sync)\b"#)
        let option = try Regex(#"(^|[\s'"(])--[a-z][a-z-]+"#)
        #expect("\"(see 'suite bundle list --all')\"".contains(command))
        #expect("\"use --force\"".contains(option))
        #expect(!"\"https://example.org/a--b\"".contains(option))
        // An iCalendar product identifier names the tool, not a command to run.
        #expect(!"\"PRODID:-//Suite//suite bundle//EN\"".contains(command))
    }
}
