import Foundation
import SuiteStorage
import Testing

/// The line reader under line-based imports: the same lines as splitting the whole text, whatever
/// the chunk boundaries, and its refusals with the line they happen on.
@Suite struct LineStreamTests {
    func lines(_ data: Data, chunk: Int) throws(LineStream.Problem) -> [String] {
        var stream = LineStream(data: data, chunkSize: chunk)
        var read: [String] = []
        var expectedNumber = 1
        while let line = try stream.next() {
            #expect(line.number == expectedNumber)
            expectedNumber += 1
            read.append(line.text)
        }
        return read
    }

    /// What a whole-file reader gives: split on "\n", one "\r" before it removed, no line after
    /// a final "\n".
    func reference(_ text: String) -> [String] {
        var parts = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        if text.unicodeScalars.last == "\n" { parts.removeLast() }
        if text.isEmpty { return [] }
        return parts.map { $0.unicodeScalars.last == "\r" ? String(String.UnicodeScalarView($0.unicodeScalars.dropLast())) : $0 }
    }

    @Test func randomTextsSplitAsAWholeReaderSplitsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "BEGIN:VTODO", " ", "\t", "\n", "\r\n", "\r", "é", "☃", "𝄞", "", "word word", "\n\n"]
        for round in 0..<300 {
            let text = (0..<Int.random(in: 0..<20, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for chunk in [1, 2, 3, 5, 9, 1 << 20] {
                #expect(try lines(Data(text.utf8), chunk: chunk) == reference(text), "round \(round), chunk \(chunk): \(text.debugDescription)")
            }
        }
    }

    @Test func invalidUTF8NamesItsLine() throws {
        let data = Data("one\ntwo\n".utf8) + Data([0x61, 0xC3, 0x28, 0x0A]) + Data("four\n".utf8)
        for chunk in [1, 4, 1 << 20] {
            #expect(throws: LineStream.Problem.notUTF8(line: 3)) { _ = try lines(data, chunk: chunk) }
        }
        // A character cut by a chunk boundary is not a problem.
        #expect(try lines(Data("é☃𝄞\n".utf8), chunk: 1) == ["é☃𝄞"])
    }

    /// A line that never ends is refused at the limit, naming it, instead of being held whole.
    @Test func aLineLongerThanTheLimitIsRefused() throws {
        var data = Data("first\n".utf8)
        data.append(Data(repeating: UInt8(ascii: "a"), count: LineStream.maximumLineBytes + 2))
        var stream = LineStream(data: data)
        #expect(try stream.next()?.text == "first")
        #expect(throws: LineStream.Problem.lineTooLong(line: 2)) { _ = try stream.next() }
    }

    @Test func aFileIsReadInChunks() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: url) }
        let expected = (0..<50_000).map { "line \($0) " + String(repeating: "x", count: $0 % 97) }
        try Data(expected.joined(separator: "\r\n").utf8).write(to: url)
        var stream = try LineStream(path: url.path)
        var read: [String] = []
        while let line = try stream.next() { read.append(line.text) }
        #expect(read == expected)
        #expect(throws: LineStream.Problem.self) { _ = try LineStream(path: url.path + ".missing") }
    }
}

/// Store UUIDs read quickly, as `UUID(uuidString:)` reads them.
@Suite struct UUIDTextTests {
    @Test func readsWhatUUIDReads() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            #expect(UUIDText.parse(uuid.uuidString) == uuid)
            #expect(UUIDText.parse(uuid.uuidString.lowercased()) == uuid)
        }
        for text in ["", "6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5", "6f1b7e3c-1d2a-4e5f-9a8b-0c1d2e3f4a5bb", "6f1b7e3c+1d2a-4e5f-9a8b-0c1d2e3f4a5b",
                     "6f1b7e3g-1d2a-4e5f-9a8b-0c1d2e3f4a5b", "6f1b7e3c1d2a-4e5f-9a8b-0c1d2e3f4a5b0", "é".padding(toLength: 36, withPad: "0", startingAt: 0)] {
            #expect(UUIDText.parse(text) == nil && UUID(uuidString: text) == nil, "\(text)")
        }
    }
}
