import Foundation
import Testing

/// `quotes say` and `tick --say` through Debian's espeak-ng.
@Suite struct SpeechTests {
    struct CLIError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let haveEngine = ["/usr/bin/espeak-ng", "/usr/local/bin/espeak-ng"].contains { FileManager.default.isExecutableFile(atPath: $0) }

    /// A WAV file's format and the seconds of sound in it, read from its chunks; nil when it is not
    /// a complete one (sizes that do not add up included).
    static func seconds(ofWAV data: Data) -> Double? {
        let bytes = [UInt8](data)
        func text(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        func uint32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        guard bytes.count >= 44, text(0) == "RIFF", text(8) == "WAVE", uint32(4) == bytes.count - 8 else { return nil }
        var offset = 12, byteRate: Int?
        while offset + 8 <= bytes.count {
            let size = uint32(offset + 4)
            if text(offset) == "fmt " {
                guard bytes[offset + 8] == 1 else { return nil }  // PCM
                byteRate = uint32(offset + 16)
            } else if text(offset) == "data" {
                guard let byteRate, byteRate > 0, offset + 8 + size == bytes.count else { return nil }
                return Double(size) / Double(byteRate)
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    @Test(.enabled(if: haveEngine || inCI, "needs espeak-ng (.ci/run installs it)"))
    func aQuoteBecomesAWAVFileWhoseLengthFitsItsText() throws {
        try #require(Self.haveEngine, "CI must install espeak-ng (.ci/run)")
        let suite = try Suite()
        let short = try suite.run("quotes", "add", "Begin.", "--source", "Me")
        #expect(short.status == 0, "\(short.stderr)")
        let words = (1...60).map { "word\($0 % 7 == 0 ? "." : "")" }
        let longText = "Patience is the companion of wisdom, and every long road is walked one step at a time; " + words.joined(separator: " ")
        #expect(try suite.run("quotes", "add", longText, "--source", "Me").status == 0)
        let list = try JSONDecoder().decode([JSONValue].self, from: Data(try suite.run("quotes", "list", "--mine", "--json").stdout.utf8))
        func id(_ text: String) throws -> String {
            guard case .number(let number)? = list.first(where: { $0["text"]?.string == text })?["id"] else {
                throw CLIError("no quote '\(text)' in the list")
            }
            return String(Int(number))
        }
        var lengths: [Double] = []
        for (text, file) in [("Begin.", "short.wav"), (longText, "long.wav")] {
            let result = try suite.run("quotes", "say", try id(text), "-o", suite.path(file))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("as speech to"))
            let data = try Data(contentsOf: URL(fileURLWithPath: suite.path(file)))
            let seconds = try #require(Self.seconds(ofWAV: data), "not a complete PCM WAV file")
            // espeak-ng's default pace is 175 words a minute; "Me." is said after the text.
            let count = Double(text.split(separator: " ").count + 1)
            #expect(seconds > count * 0.15 && seconds < count * 0.8 + 1, "\(count) words in \(seconds) s")
            lengths.append(seconds)
        }
        #expect(lengths[1] > lengths[0] * 5)
        // Standard output gets the same kind of file; a slower speed makes it longer.
        let piped = try suite.run(["quotes", "say", try id("Begin."), "-o", "-"])
        #expect(piped.status == 0)
        #expect(piped.stdout.hasPrefix("RIFF"))
        #expect(try suite.run("quotes", "say", try id(longText), "--speed", "90", "-o", suite.path("slow.wav")).status == 0)
        let slow = try #require(Self.seconds(ofWAV: try Data(contentsOf: URL(fileURLWithPath: suite.path("slow.wav")))))
        #expect(slow > lengths[1] * 1.4, "\(slow) s at 90 words a minute, \(lengths[1]) s at 175")
        // Bad settings are refused before anything is spoken.
        #expect(try suite.run("quotes", "say", "1", "--speed", "5").status == 64)
        let voice = try suite.run("quotes", "say", "1", "--voice", "zz-nope", "-o", suite.path("v.wav"))
        #expect(voice.status == 64, "\(voice.stderr)")
        #expect(!FileManager.default.fileExists(atPath: suite.path("v.wav")))
    }

    @Test func withoutASpeechEngineSayAndTickSayExit69AndDeliverNothing() throws {
        let suite = try Suite()
        let empty = suite.path("empty-bin")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try suite.run("quotes", "starter")
        let say = try suite.run(["quotes", "say", "1", "-o", suite.path("q.wav")], environment: ["PATH": empty])
        #expect(say.status == 69)
        #expect(say.stderr.contains("no speech engine: install espeak-ng"))
        #expect(!FileManager.default.fileExists(atPath: suite.path("q.wav")))
        #expect(try suite.run("quotes", "schedule", "set", "00:00,06:00,12:00,18:00").status == 0)
        let tick = try suite.run(["quotes", "tick", "--stdout", "--say"], environment: ["PATH": empty])
        #expect(tick.status == 69)
        let history = try JSONDecoder().decode([JSONValue].self, from: Data(try suite.run("quotes", "history", "--json").stdout.utf8))
        #expect(history.isEmpty, "nothing is delivered when it cannot be spoken")
    }
}
