import ArgumentParser
import Foundation

/// `--color auto|always|never`.
enum ColorMode: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, always, never
}

/// Colour in text for people: ✓ and ! in `bmm`, pins in `places`, and an accent colour.
///
/// Commands paint text with ``paint(_:_:)`` and ``accent(_:)``, which wrap it in markers
/// (noncharacters U+FDD2…U+FDD9, which the text rule keeps out of every store, like
/// ``VisibleText/emphasisOpen``). The module-level `print` makes control characters visible
/// first and then turns the markers into SGR sequences, or removes them when colour is off, so
/// the only escape sequences `suite` writes are its own, and stored text with ESC stays escaped.
///
/// Colour is on with `--color always`; with `--color auto` (the default) only when stdout is a
/// terminal, `NO_COLOR` is unset or empty and `TERM` is not `dumb`; never with `--color never`.
/// The accent colour is `$SUITE_ACCENT` (red, green, yellow, blue, magenta or cyan; default cyan).
enum Colour {
    enum Name: String, CaseIterable, Sendable {
        case red, green, yellow, blue, magenta, cyan

        var sgr: String {
            switch self {
            case .red: return "\u{1B}[31m"
            case .green: return "\u{1B}[32m"
            case .yellow: return "\u{1B}[33m"
            case .blue: return "\u{1B}[34m"
            case .magenta: return "\u{1B}[35m"
            case .cyan: return "\u{1B}[36m"
            }
        }

        /// U+FDD2 … U+FDD7.
        var marker: String { String(UnicodeScalar(0xFDD2 + UInt32(Self.allCases.firstIndex(of: self) ?? 0)) ?? " ") }
    }

    static let reset = "\u{1B}[0m"
    /// U+FDD9: back to the default colour.
    static let resetMarker = String(decoding: [0xEF, 0xB7, 0x99], as: UTF8.self)

    /// The choice for this run, made once while the command line is read (before `run`), kept in
    /// the run's ``CLIContext``.
    struct Choice: Sendable {
        var enabled = false
        var accent = Name.cyan
    }
    private static var choice: Choice { CLIContext.current.colour.value }

    /// Whether colour is on for `mode`, given the environment and whether stdout is a terminal.
    static func isEnabled(_ mode: ColorMode, environment: [String: String], stdoutIsTerminal: Bool) -> Bool {
        switch mode {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return stdoutIsTerminal
        }
    }

    /// The accent colour named by `$SUITE_ACCENT` (cyan when unset or empty).
    ///
    /// - Throws: `ValidationError` (exit 64) for a name that is not one of ``Name``.
    static func accent(environment: [String: String]) throws -> Name {
        guard let value = environment["SUITE_ACCENT"]?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else { return .cyan }
        guard let name = Name(rawValue: value) else {
            let names = Name.allCases.map(\.rawValue)
            throw ValidationError("SUITE_ACCENT '\(value)' is not a colour: use \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")")
        }
        return name
    }

    /// Chooses colour for this run from `--color` and the environment.
    static func choose(_ mode: ColorMode) throws {
        let context = CLIContext.current
        context.colour.value = Choice(enabled: isEnabled(mode, environment: context.environment, stdoutIsTerminal: context.stdoutIsTerminal),
                                      accent: try accent(environment: context.environment))
    }

    static var enabled: Bool { choice.enabled }

    /// `text` to be shown in `colour` (nil: as it is).
    static func paint(_ text: String, _ colour: Name?) -> String {
        guard let colour else { return text }
        return colour.marker + text + resetMarker
    }

    /// `text` in the accent colour.
    static func accent(_ text: String) -> String { paint(text, choice.accent) }

    /// `visible` (already made visible) with the markers turned into SGR sequences, or removed
    /// when colour is off.
    static func render(_ visible: String) -> String {
        // Every marker is EF B7 9x in UTF-8: most lines have no EF byte at all.
        guard visible.utf8.contains(0xEF) else { return visible }
        var text = visible
        for name in Name.allCases { text = text.replacingOccurrences(of: name.marker, with: choice.enabled ? name.sgr : "") }
        return text.replacingOccurrences(of: resetMarker, with: choice.enabled ? reset : "")
    }
}

/// `--color`, shared by every command that prints (in ``CommonOptions`` and ``TextOptions``).
struct ColorOption: ParsableArguments {
    @Option(name: .customLong(.color), help: ArgumentHelp(
        "auto (colour only on a terminal, and not with NO_COLOR set), always or never. $SUITE_ACCENT picks the accent colour.",
        valueName: "when"))
    var mode: ColorMode = .auto

    func validate() throws { try Colour.choose(mode) }
}

/// The colour chosen for one run (``CLIContext/colour``).
final class ColourChoice: @unchecked Sendable {
    private let lock = NSLock()
    private var choice = Colour.Choice()

    var value: Colour.Choice {
        get { lock.lock(); defer { lock.unlock() }; return choice }
        set { lock.lock(); choice = newValue; lock.unlock() }
    }
}
