import Foundation
import PropertyBased
import Testing

/// Python with the independent readers' packages (icalendar, markdown-it-py); `.ci/run` makes it.
enum Readers {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let script = root.appendingPathComponent("Tests/Support/independent-readers.py").path

    static let python: String? = {
        var candidates: [String] = []
        if let chosen = ProcessInfo.processInfo.environment["SUITE_READERS_PYTHON"] { candidates.append(chosen) }
        candidates.append(root.appendingPathComponent(".build/ci-venv/bin/python").path)
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            let check: (status: Int32, stdout: Data, stderr: Data)? = try? Readers.run(path, ["-c", "import icalendar, markdown_it"])
            if check?.status == 0 { return path }
        }
        return nil
    }()

    /// In CI the readers are installed by .ci/run, so these tests must run there; elsewhere they
    /// are skipped (visibly) when the packages are missing.
    static let enabled = python != nil || ProcessInfo.processInfo.environment["CI"] != nil

    /// Whether that Python also has pytodotxt (the todo.txt reader).
    static let hasTodoTxt = python.map { (try? run($0, ["-c", "import pytodotxt"]))?.status == 0 } ?? false

    /// The todo.txt reader's tests: run in CI (where a missing pytodotxt fails them), skipped
    /// visibly elsewhere without it.
    static let todoTxtEnabled = hasTodoTxt || ProcessInfo.processInfo.environment["CI"] != nil

    /// Runs a reader on `data` and returns what it printed, decoded from JSON.
    static func read(_ kind: String, _ data: Data) throws -> [String: Any] {
        let python = try #require(python, "no Python with icalendar and markdown-it-py: run .ci/run or set SUITE_READERS_PYTHON")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("suite-reader-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try run(python, [script, kind, file.path])
        try #require(result.status == 0, "the \(kind) reader failed: \(String(decoding: result.stderr, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes to the end before waiting, so a large answer cannot block the reader.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, outputData, errorData)
    }
}

/// Text an attacker or an unlucky file would hold: every line-break form, control characters,
/// the metacharacters of each format, long and non-BMP text.
enum Hostile {
    static let pieces: [String] = [
        "a", "word", "Zoë", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\u{2028}", "\u{2029}", "\u{85}", "\u{0B}", "\u{0C}",
        "\u{1B}[31m", "\u{1B}]0;title\u{7}", "\u{7}", "\u{0}", "\u{7F}", "\u{9B}",
        "#", "## ", "   # ", "=", "===", "---", "- ", "+ ", "* ", "1. ", "2) ", "> ", "```", "~~~", "    code", "<script>alert(1)</script>",
        "<!-- x -->", "&amp;", "&#32;", "*em*", "_em_", "**b**", "`c`", "[x](http://e.com)", "![i](j)", "<http://e.com>", "|a|b|", "\\",
        "%", "\n%\n", "%%", " %", ",", "\"", ";", ":", "\\n", "\\,", "=1+1", "+1", "-1.5", "@SUM(A1)", "\t=cmd",
        "@ctx", "due:tomorrow", "id:x", "note:x", "prep:after", "bundle:x", "text:y", "x ", "(A) ", "2026-01-01 ",
        "BEGIN:VTODO", "END:VCALENDAR", "SUMMARY:forged", "]]>", "<![CDATA[", "\u{FFFE}", "\u{FFFF}", "\u{FFFD}",
        "😀", "👩‍👩‍👧", "e\u{301}", "\u{A0}", "\u{200B}", "\u{202E}", "中文", String(repeating: "long ", count: 30),
    ]

    static let piece = Gen<String?>.element(of: pieces).map { $0 ?? "" }
    static let text = piece.array(of: 1...10).map { $0.joined() }
    static let texts = text.array(of: 1...8)
}

/// Without white space: Markdown readers may fold or drop spaces and line breaks, never the
/// characters themselves.
func squeezed(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.properties.isWhitespace }))
}

func temporaryStore(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("suite-format-tests-\(UUID().uuidString)/\(name)")
}

func removeStore(_ url: URL) {
    try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
}
