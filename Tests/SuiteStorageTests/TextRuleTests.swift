import Foundation
import Testing
@testable import SuiteStorage

/// A scalar Swift will not take as a literal (U+FDD0 and the like).
func scalar(_ value: UInt32) -> String { Unicode.Scalar(value).map { String($0) } ?? "" }

@Suite struct TextRuleTests {
    static let line = TextField.line(limit: 20)
    static let text = TextField.text(limit: 40)

    static let refusedEverywhere: [(String, TextProblem)] = [
        ("a\u{0}b", .controlCharacter(0)),
        ("a\u{7}b", .controlCharacter(7)),
        ("a\u{1B}[31mred", .controlCharacter(0x1B)),
        ("a\u{1B}]0;title\u{7}", .controlCharacter(0x1B)),
        ("a\u{7F}b", .controlCharacter(0x7F)),
        ("a\u{9B}31mb", .controlCharacter(0x9B)),
        ("a\u{FFFE}b", .noncharacter(0xFFFE)),
        ("a\u{FFFF}b", .noncharacter(0xFFFF)),
        ("a" + scalar(0xFDD0) + "b", .noncharacter(0xFDD0)),
        ("a\u{10FFFF}b", .noncharacter(0x10FFFF)),
        ("   ", .empty),
        ("", .empty),
    ]

    @Test(arguments: refusedEverywhere.indices)
    func controlCharactersNoncharactersAndEmptinessAreRefusedInEveryField(index: Int) {
        let (value, problem) = Self.refusedEverywhere[index]
        #expect(TextRule.check(value, Self.line) == .failure(problem))
        #expect(TextRule.check(value, Self.text) == .failure(problem))
    }

    @Test(arguments: ["a\nb", "a\rb", "a\r\nb", "a\u{0B}b", "a\u{0C}b", "a\u{85}b", "a\u{2028}b", "a\u{2029}b"])
    func everyLineBreakIsRefusedInAOneLineField(value: String) {
        #expect(TextRule.check(value, Self.line) == .failure(.lineBreak))
    }

    @Test func directionalOverridesAreRefusedInNamesAndABOMIsNoText() {
        #expect(TextRule.check("Me\u{202E}gnp.exe", Self.line) == .failure(.directionalControl(0x202E)))
        #expect(TextRule.check("a\u{2066}b", Self.line) == .failure(.directionalControl(0x2066)))
        #expect(TextRule.check("שלום \u{202B}x", Self.text) == .success("שלום \u{202B}x"))
        #expect(TextRule.check("\u{FEFF}Stay hungry.", Self.text) == .success("Stay hungry."))
        #expect(TextRule.check("\u{FEFF}", Self.line) == .failure(.empty))
    }

    @Test func aTabIsRefusedInAOneLineFieldAndKeptInText() {
        #expect(TextRule.check("a\tb", Self.line) == .failure(.controlCharacter(9)))
        #expect(TextRule.check("a\tb", Self.text) == .success("a\tb"))
    }

    @Test(arguments: [
        ("one\r\ntwo", "one\ntwo"), ("one\rtwo", "one\ntwo"), ("one\r\rtwo", "one\n\ntwo"),
        ("one\n\rtwo", "one\n\ntwo"), ("one\r\n\r\ntwo\r", "one\n\ntwo"), ("\r\none\r", "one"),
        ("a\u{2028}b\u{2029}c", "a\nb\nc"), ("\u{2029}x\u{2028}", "x"),
    ])
    func textLineEndingsBecomeLineFeeds(value: String, expected: String) throws {
        let checked = try TextRule.check(value, Self.text).get()
        #expect(checked == expected)
        #expect(!checked.unicodeScalars.contains("\r"))
    }

    @Test func textRefusesOtherVerticalControls() {
        #expect(TextRule.check("a\u{0B}b", Self.text) == .failure(.controlCharacter(0x0B)))
        #expect(TextRule.check("a\u{0C}b", Self.text) == .failure(.controlCharacter(0x0C)))
        #expect(TextRule.check("a\u{85}b", Self.text) == .failure(.controlCharacter(0x85)))
    }

    @Test func limitsCountCharactersForLinesAndBytesForText() {
        let emoji = String(repeating: "👩‍👩‍👧", count: 20)  // 20 characters, 360 bytes
        #expect(TextRule.check(emoji, Self.line) == .success(emoji))
        #expect(TextRule.check(emoji + "x", Self.line) == .failure(.tooLong(length: 21, limit: 20, bytes: false)))
        #expect(TextRule.check(String(repeating: "é", count: 21), Self.text) == .failure(.tooLong(length: 42, limit: 40, bytes: true)))
        #expect(TextRule.check(String(repeating: "x", count: 100_000), Self.line)
                == .failure(.tooLong(length: 100_000, limit: 20, bytes: false)))
    }

    @Test func valuesAreTrimmedAndEmptyMayBeAllowed() {
        #expect(TextRule.check("  \u{A0}Acme\u{3000} \n", Self.text) == .success("Acme"))
        #expect(TextRule.check(" \t ", Self.text, allowEmpty: true) == .success(""))
    }

    @Test func problemsDescribeTheirField() {
        #expect(TextProblem.controlCharacter(0x1B).describe("source") == "the source holds the control character U+001B")
        #expect(TextProblem.noncharacter(0x10FFFF).describe("name") == "the name holds the noncharacter U+10FFFF")
        #expect(TextProblem.lineBreak.describe("event phrase") == "the event phrase holds a line break; it must be one line")
        #expect(TextProblem.tooLong(length: 9, limit: 8, bytes: false).describe("icon") == "the icon is 9 characters long; at most 8 are allowed")
    }

    /// The fast byte scan and the scalar scan agree with the rule's definition on every scalar of
    /// the ranges that matter and on random strings.
    @Test func theScanMatchesItsDefinition() {
        func reference(_ text: String, multiline: Bool) -> TextProblem? {
            for scalar in text.unicodeScalars {
                let value = scalar.value
                let isBreak = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029].contains(value)
                if multiline {
                    if value == 0x0A || value == 0x09 { continue }
                    if value == 0x2028 || value == 0x2029 { return .controlCharacter(value) }
                } else if isBreak {
                    return .lineBreak
                }
                if scalar.properties.generalCategory == .control { return .controlCharacter(value) }
                if !multiline && ((0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)) { return .directionalControl(value) }
                if scalar.properties.isNoncharacterCodePoint { return .noncharacter(value) }
            }
            return nil
        }
        var samples: [String] = []
        for value in UInt32(0)...0x3000 { if let scalar = Unicode.Scalar(value) { samples.append("x" + String(scalar) + "y") } }
        for value in [0xFDCF, 0xFDD0, 0xFDEF, 0xFDF0, 0xFFFD, 0xFFFE, 0xFFFF, 0x1FFFE, 0x1FFFF, 0x10FFFD, 0x10FFFE] as [UInt32] {
            if let scalar = Unicode.Scalar(value) { samples.append(String(scalar)) }
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", " ", "\t", "\n", "\u{7}", "\u{1B}", "\u{85}", "\u{9F}", "\u{A0}", "é", "\u{2028}", "\u{FFFE}", "😀", "\u{202E}", "\u{2067}"]
        for _ in 0..<2_000 {
            let count = Int.random(in: 1...8, using: &generator)
            samples.append(String(String.UnicodeScalarView((0..<count).map { _ in alphabet.randomElement(using: &generator) ?? "a" })))
        }
        for sample in samples {
            for multiline in [false, true] {
                #expect(TextRule.firstProblem(in: sample, multiline: multiline) == reference(sample, multiline: multiline),
                        "\(sample.unicodeScalars.map { TextRule.codePoint($0.value) }) multiline: \(multiline)")
            }
        }
    }
}

@Suite struct FileContentsTests {
    @Test func readingStopsPastTheLimit() {
        guard case .tooLarge(let limit) = FileContents.read(path: "/dev/zero", limit: 3 << 20) else {
            Issue.record("/dev/zero was read to an end")
            return
        }
        #expect(limit == 3 << 20)
        guard case .data(let data) = FileContents.read(path: "/etc/hostname", limit: 1 << 20) else {
            Issue.record("a small file was refused")
            return
        }
        #expect(!data.isEmpty)
    }
}

@Suite struct ISOTimeTests {
    @Test(arguments: ["2026-11-21T05:46:38Z", "2026-11-21T05:46:38.007Z", "2026-11-21T06:46:38+01:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2024-02-29T12:00:00Z"])
    func realTimesRead(text: String) { #expect(ISOTime.date(text) != nil, "\(text)") }

    @Test(arguments: ["2026-02-30T10:00:00Z", "2025-02-29T12:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T05:60:00Z", "99999-01-01T00:00:00Z",
                      "-0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "2026-11-21", "2026-11-21T05:46:38", "2026-11-21T05:46:38+25:00", "2026-13-01T00:00:00Z"])
    func impossibleTimesAreNil(text: String) { #expect(ISOTime.date(text) == nil, "\(text)") }

    @Test func formattingReadsBack() {
        for millis in [0, 1, 1_732_168_000_007, -86_400_000, 253_402_300_799_999] as [Int64] {
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            #expect(ISOTime.date(ISOTime.string(date)).map { Millis($0).value } == millis)
        }
    }
}
