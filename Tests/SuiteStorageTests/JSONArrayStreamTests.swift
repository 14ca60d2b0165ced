import Foundation
import SuiteStorage
import Testing

/// The streaming JSON array reader: the same elements as a whole-document parser, whatever the
/// chunk boundaries, and the same refusals.
@Suite struct JSONArrayStreamTests {
    func elements(_ text: String, keys: Set<String> = ["items"], chunk: Int) throws -> (items: [Any], stream: JSONArrayStream) {
        var stream = JSONArrayStream(data: Data(text.utf8), arrayKeys: keys, chunkSize: chunk)
        var items: [Any] = []
        while let element = try stream.next() {
            items.append(try JSONSerialization.jsonObject(with: element, options: .fragmentsAllowed))
        }
        return (items, stream)
    }

    /// Random documents, written by JSONSerialization, read back in chunks of 1 to 9 bytes.
    @Test func randomDocumentsReadAsAWholeParserReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        func value(_ depth: Int) -> Any {
            switch Int.random(in: 0..<(depth > 2 ? 4 : 7), using: &generator) {
            case 0: return Int.random(in: -1_000_000...1_000_000, using: &generator)
            case 1: return ["a \"quoted\" word", "back\\slash", "brackets ] [ } {", "comma, colon: ", "é ☃ 𝄞", "line\nbreak\ttab", "\u{1}"][Int.random(in: 0..<7, using: &generator)]
            case 2: return Bool.random(using: &generator)
            case 3: return NSNull()
            case 4, 5: return (0..<Int.random(in: 0..<4, using: &generator)).map { _ in value(depth + 1) }
            default: return Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 0..<4, using: &generator)).map { ("k\($0) ]\"", value(depth + 1)) })
            }
        }
        for round in 0..<200 {
            let items = (0..<Int.random(in: 0..<6, using: &generator)).map { _ in value(0) }
            let wrapped = round % 2 == 0
            let document: Any = wrapped ? ["before": ["x": [1, "]"]], "items": items, "after": "tail"] as [String: Any] : items
            let data = try JSONSerialization.data(withJSONObject: document, options: round % 3 == 0 ? [.prettyPrinted] : [])
            let text = String(decoding: data, as: UTF8.self)
            let expected = try JSONSerialization.data(withJSONObject: items, options: [.sortedKeys, .fragmentsAllowed])
            for chunk in [1, 2, 3, 7, 9, 1 << 20] {
                let (read, stream) = try elements(text, chunk: chunk)
                #expect(try JSONSerialization.data(withJSONObject: read, options: [.sortedKeys, .fragmentsAllowed]) == expected, "round \(round), chunk \(chunk): \(text)")
                #expect(stream.arrayKey == (wrapped ? "items" : nil))
                if wrapped {
                    #expect(stream.members["after"].map { String(decoding: $0, as: UTF8.self) } == "\"tail\"")
                }
            }
        }
    }

    @Test func refusalsSayWhatIsWrong() throws {
        let cases: [(String, JSONArrayStream.Problem)] = [
            ("", .invalidJSON("the document is empty")),
            ("  nope", .invalidJSON("expected an array or an object at the start")),
            ("[1, 2", .invalidJSON("the document ends inside the array")),
            ("[1 2]", .invalidJSON("expected ',' or ']' after array element")),
            ("[1, 2] x", .invalidJSON("more after the end of the document")),
            ("{\"other\": [1]}", .noArray),
            ("{\"items\": [1], \"x\" 2}", .invalidJSON("expected ':' after the key 'x'")),
            ("[\"unterminated]", .invalidJSON("the document ends inside a value")),
        ]
        for (text, problem) in cases {
            for chunk in [1, 4, 1 << 20] {
                #expect(throws: problem, "\(text)") { _ = try elements(text, chunk: chunk) }
            }
        }
        var stream = JSONArrayStream(data: Data([0x5B, 0x22, 0xFF, 0x22, 0x5D]), arrayKeys: [])
        #expect(throws: JSONArrayStream.Problem.notUTF8) { _ = try stream.next() }
        var bare = JSONArrayStream(data: Data([0x22, 0xFF, 0x22]), arrayKeys: [])
        #expect(throws: JSONArrayStream.Problem.notUTF8) { _ = try bare.next() }
        // A byte-order mark and an empty array are fine.
        #expect(try elements("\u{FEFF} [ ] ", chunk: 2).items.isEmpty)
    }
}
