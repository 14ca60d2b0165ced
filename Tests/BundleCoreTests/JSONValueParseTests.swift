import Foundation
import Testing
@testable import BundleCore

/// The quick reader of stored fields gives what `JSONDecoder` gives, and nothing for what is
/// not JSON.
@Suite struct JSONValueParseTests {
    @Test func randomValuesReadAsJSONDecoderReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &generator) {
            case 0: return .string(["", "plain", "a \"quoted\" \\ word", "é ☃ 𝄞", "line\nbreak\ttab\r", "\u{1}\u{1F}", "/slash/"].randomElement(using: &generator)!)
            case 1: return .number([0, -1, 3.25, 1e21, -2.5e-7, 123_456_789_012, 0.1].randomElement(using: &generator)!)
            case 2: return Bool.random(using: &generator) ? .bool(true) : .null
            case 3: return .bool(false)
            case 4: return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in value(depth + 1) })
            default: return .object(Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 0..<4, using: &generator)).map { ("k\($0) \"é", value(depth + 1)) }))
            }
        }
        let encoder = JSONEncoder()
        for round in 0..<500 {
            let original = value(0)
            let data = try encoder.encode(original)
            let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
            #expect(JSONValue.parse(data) == decoded, "round \(round): \(String(decoding: data, as: UTF8.self))")
        }
        // Escapes JSONEncoder does not write.
        let escaped = Data(#"{"a":"\u00e9\ud834\udd1e\/\b\f","b":[ 1 , -0.5E+2 , true ] }"#.utf8)
        #expect(JSONValue.parse(escaped) == (try JSONDecoder().decode(JSONValue.self, from: escaped)))
    }

    @Test(arguments: ["", " ", "01", "1.", ".5", "-", "1e", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{a:1}", "\"open",
                      "\"bad \\x escape\"", "\"\\ud834 alone\"", "\"\\udd1e\"", "\"tab\tinside\"", "tru", "nul", "[1]]", "1 2", "NaN", "{\"a\":1,\"a\":2}"])
    func notJSONGivesNothing(text: String) {
        #expect(JSONValue.parse(Data(text.utf8)) == nil)
    }
}
