import Foundation
import SuiteTestSupport
import Testing
@testable import SuiteStorage

/// Values, changes and pull answers are read and written without Foundation's JSON coders
/// where they are plain; whatever is read or written so must be exactly what the coders read
/// and write, and anything else must still reach them.
@Suite struct PlainJSONTests {
    /// A random value: every kind, texts with every character JSON escapes and some it does not.
    static func value(_ random: inout SeededRandom, depth: Int = 0) -> SyncValue {
        let pieces = ["a", "Z", " ", "é", "😀", "\u{2028}", "\u{7F}", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "{", "]", ",", ":", "null", "1"]
        switch random.next(upTo: depth < 2 ? 7 : 6) {
        case 0: return .null
        case 1: return .integer([0, 1, -1, 42, Int64.max, Int64.min, 999_999_999_999_999_999, -999_999_999_999_999_999, 1_000_000_000_000_000_000,
                                 117_691_601_613_029_376][random.next(upTo: 10)])
        case 2: return .real([0.5, -2.25, 3.0, 1e300, 0.1, -0.0][random.next(upTo: 6)])
        case 3: return .text((0..<random.next(upTo: 8)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined())
        case 4: return .blob(Data((0..<random.next(upTo: 6)).map { _ in UInt8(random.next(upTo: 256)) }))
        case 5: return .text("plain \(random.next(upTo: 1000))")
        default: return .list((0..<random.next(upTo: 4)).map { _ in value(&random, depth: depth + 1) })
        }
    }

    @Test func valuesAreWrittenAndReadAsTheJSONCodersDo() throws {
        var random = SeededRandom(seed: 34)
        for _ in 0..<3_000 {
            let value = Self.value(&random)
            let json = try value.jsonText()
            #expect(json == String(decoding: try JSONEncoder().encode(value), as: UTF8.self), "\(value)")
            #expect(SyncValue(jsonText: json) == (try? JSONDecoder().decode(SyncValue.self, from: Data(json.utf8))), "\(json)")
        }
    }

    @Test(arguments: [
        "null", "0", "-0", "01", "-01", "1e3", "3.0", "-5", " 1", "1 ", "[1, 2]", "[1,2]", "[]", "[[]]", "[1,]", "[,1]", "[1", "nul", "nulll",
        "true", "false", "{}", #"{"blob":"AAE="}"#, #"{"blob":"AAE"}"#, "\"", #""abc"#, #""a\"b""#, #""a\/b""#, #""\u00e9""#, #""\u0000""#,
        #""\ud83d\ude00""#, #""\ud83d""#, #""\x""#, "\"tab\tin\"", "\"é\"", "123456789012345678", "1234567890123456789", "-9223372036854775808",
        "9223372036854775808", "18446744073709551616", #"["a",null,[0,"done"]]"#, "", "1.", "-", "--1", "+1", "0x10",
    ])
    func oddTextsAreReadAsJSONDecoderReadsThem(text: String) {
        #expect(SyncValue(jsonText: text) == (try? JSONDecoder().decode(SyncValue.self, from: Data(text.utf8))))
    }

    @Test func changesAreReadAsJSONDecoderReadsThem() throws {
        var random = SeededRandom(seed: 35)
        for n in 0..<2_000 {
            let change = SyncChange(id: "op-\(n)/\"x\"", entity: ["todo", "event-name", "é/ü"][random.next(upTo: 3)], key: "k\\\(n)",
                                    field: "notes", value: Self.value(&random), time: HybridTime(rawValue: Int64(random.next(upTo: 1 << 30)) << 27),
                                    device: "d\(random.next(upTo: 3))", base: random.next(upTo: 3) == 0 ? nil : "base-\(n)")
            let json = try SyncChange.encoder.encode(change)
            #expect(try SyncChange.decode(json) == JSONDecoder().decode(SyncChange.self, from: json))
        }
    }

    @Test(arguments: [
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":"x"}"#,
        #"{"base":null,"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":null}"#,
        #"{"value":[1,"a"],"time":5,"key":"k","id":"1","field":"notes","entity":"todo","device":"d"}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":"x","later":true}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","id":"2","key":"k","time":5,"value":"x"}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":-5,"value":"x"}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5.0,"value":"x"}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","value":"x"}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":1,"key":"k","time":5,"value":"x"}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":"x","base":7}"#,
        #"{ "device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":"x"}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":"x"} "#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":{"blob":"AAE="}}"#,
        #"{"device":"d","entity":"todo","field":"notes","id":"1","key":"k","time":5,"value":"x"}}"#,
        #"{}"#, "", "[]",
    ])
    func oddChangesAreReadAsJSONDecoderReadsThem(json: String) {
        let data = Data(json.utf8)
        #expect((try? SyncChange.decode(data)) == (try? JSONDecoder().decode(SyncChange.self, from: data)))
    }
}
