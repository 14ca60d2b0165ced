import ArgumentParser
import Foundation
import QuoteCore

/// Speech through Debian's espeak-ng: text goes in on standard input (never as an argument),
/// sound to the speakers or, as a WAV file, to standard output.
enum Speech {
    static let engines = ["espeak-ng", "espeak"]

    /// The speech engine on PATH, or exit 69 saying how to get one.
    static func engine() throws -> URL {
        guard let found = engines.lazy.compactMap({ Executables.find($0) }).first else {
            throw CLIError.unavailable("no speech engine: install espeak-ng (sudo apt-get install espeak-ng) and try again")
        }
        return found
    }

    /// Speaks `text`, or returns it as WAV bytes when `wav` is set.
    @discardableResult
    static func run(_ text: String, engine: URL, voice: String?, speed: Int?, wav: Bool) throws -> Data {
        let process = Process()
        process.executableURL = engine
        var arguments = ["--stdin"]
        if let voice { arguments += ["-v", voice] }
        if let speed { arguments += ["-s", String(speed)] }
        if wav { arguments.append("--stdout") }
        process.arguments = arguments
        Terminal.prepare(process)
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = wav ? output : FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw CLIError.unavailable("cannot start \(engine.lastPathComponent): \(error.localizedDescription)")
        }
        // Read while writing: a long quote's sound does not fit a pipe's buffer.
        let sound = Collected(), finished = DispatchSemaphore(value: 0)
        let soundHandle = output.fileHandleForReading
        if wav {
            DispatchQueue.global().async {
                sound.data = soundHandle.readDataToEndOfFile()
                finished.signal()
            }
        }
        // An engine that stops before reading everything (an unknown voice) must not end this
        // process with SIGPIPE: the write fails instead, and its exit status says why.
        let previous = signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try? input.fileHandleForWriting.close()
        signal(SIGPIPE, previous)
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if wav { finished.wait() }
        guard process.terminationStatus == 0, !wav || sound.data.count > 44 else {
            let said = String(decoding: complaint, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "exit status \(process.terminationStatus)"
            if voice != nil, said.localizedCaseInsensitiveContains("voice") {
                throw CLIError.usage("\(engine.lastPathComponent) does not know voice '\(voice ?? "")': \(VisibleText.visible(said, oneLine: true))")
            }
            throw CLIError.unavailable("\(engine.lastPathComponent) could not speak: \(VisibleText.visible(said, oneLine: true))")
        }
        return wav ? try completedWAV(sound.data) : sound.data
    }

    /// The engine streams its WAV to a pipe, so the header's sizes are placeholders: they are set
    /// to what was written (RIFF size, and the data chunk running to the end).
    static func completedWAV(_ bytes: Data) throws -> Data {
        var wav = [UInt8](bytes)
        func text(_ at: Int) -> String { String(decoding: wav[at..<at + 4], as: UTF8.self) }
        func put(_ value: Int, at offset: Int) {
            let value = UInt32(clamping: value)
            for index in 0..<4 { wav[offset + index] = UInt8((value >> (8 * UInt32(index))) & 0xFF) }
        }
        guard wav.count >= 12, text(0) == "RIFF", text(8) == "WAVE" else { throw CLIError.unavailable("the speech engine did not write a WAV file") }
        var offset = 12
        while offset + 8 <= wav.count {
            let size = Int(wav[offset + 4]) | Int(wav[offset + 5]) << 8 | Int(wav[offset + 6]) << 16 | Int(wav[offset + 7]) << 24
            if text(offset) == "data" {
                put(wav.count - offset - 8, at: offset + 4)
                put(wav.count - 8, at: 4)
                return Data(wav)
            }
            offset += 8 + size + (size & 1)
        }
        throw CLIError.unavailable("the speech engine's WAV file has no sound in it")
    }

    /// What the engine wrote, filled in by the thread that reads it.
    private final class Collected: @unchecked Sendable {
        var data = Data()
    }
}

extension QuotesCommand {
    struct Say: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "say",
            abstract: "Speak a quote (today's when no number is given), or write it as a WAV file.",
            discussion: """
                Uses espeak-ng (Debian: sudo apt-get install espeak-ng); without it, exits with 69.

                Examples:
                  suite quotes say
                  suite quotes say 42 --voice en-gb --speed 150
                  suite quotes say 42 -o quote.wav
                """)

        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The quote's number (default: the quote of the day).", valueName: "id")) var id: String?
        @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write a WAV file instead of speaking ('-': standard output).", valueName: "file"))
        var output: String?
        @Option(help: ArgumentHelp("An espeak-ng voice, like en-gb or de.", valueName: "voice")) var voice: String?
        @Option(help: ArgumentHelp("Words per minute, \(Self.speeds.lowerBound)…\(Self.speeds.upperBound).", valueName: "wpm")) var speed: Int?

        static let speeds = 80...450

        func checkSettings() throws {
            if let speed, !Self.speeds.contains(speed) {
                throw CLIError.usage("invalid --speed \(speed): use \(Self.speeds.lowerBound)…\(Self.speeds.upperBound) words per minute")
            }
            if let voice, voice.isEmpty || !voice.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_+/".contains($0)) }) {
                throw CLIError.usage("invalid --voice '\(VisibleText.visible(voice, oneLine: true))': use a name like en-gb (espeak-ng --voices lists them)")
            }
        }

        func run() throws {
            try checkSettings()
            let engine = try Speech.engine()
            let store = try options.openSeeded()
            let quote: Quote
            if let id {
                quote = try store.quote(try Quotes.id(id))
            } else {
                let parts = Calendar.current.dateComponents([.year, .month, .day], from: Date())
                quote = try store.quoteOfTheDay(year: parts.year ?? 2000, month: parts.month ?? 1, day: parts.day ?? 1)
            }
            let text = QuoteExport.spokenText(quote)
            guard let output else {
                try Speech.run(text, engine: engine, voice: voice, speed: speed, wav: false)
                return
            }
            let sound = try Speech.run(text, engine: engine, voice: voice, speed: speed, wav: true)
            if output == "-" {
                Terminal.write(sound)
            } else {
                try AtomicFile.write(sound, to: output)
                print("Wrote #\(quote.id.rawValue) as speech to \(output).")
            }
        }
    }
}
