import Foundation

/// The command lines `suite quotes schedule install` writes: a crontab line and a systemd
/// `ExecStart=`, each quoted by its own target's rules so that every argument comes back
/// exactly, whatever it holds (`;`, `$`, quotes, `%`, spaces).
///
/// A line break or another control character cannot be written safely into either file (it
/// would end the crontab line or add a directive to the unit), so such an argument is refused.
enum TimerScripts {
    /// A crontab line running `arguments` every minute with the session bus of `uid`.
    ///
    /// cron hands the command to `/bin/sh -c` after turning each `%` into a line break and each
    /// `\%` into `%`; so every argument is single-quoted for the shell, then each `%` escaped.
    /// - Throws: ``CLIError/usage(_:)`` for an argument with a control character.
    static func cronLine(_ arguments: [String], uid: UInt32) throws -> String {
        try check(arguments)
        let command = arguments.map(shellQuoted).joined(separator: " ").replacingOccurrences(of: "%", with: "\\%")
        return "* * * * * DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/\(uid)/bus \(command)"
    }

    /// The value of `ExecStart=` for `arguments`, after systemd.syntax(7) and systemd.service(5):
    /// every word in double quotes, `\` and `"` backslash-escaped, `$` written `$$` (no
    /// environment expansion) and `%` written `%%` (no specifier).
    /// - Throws: ``CLIError/usage(_:)`` for an argument with a control character.
    static func execStart(_ arguments: [String]) throws -> String {
        try check(arguments)
        return arguments.map { argument in
            var quoted = "\""
            for character in argument {
                switch character {
                case "\\": quoted += "\\\\"
                case "\"": quoted += "\\\""
                case "$": quoted += "$$"
                case "%": quoted += "%%"
                default: quoted.append(character)
                }
            }
            return quoted + "\""
        }.joined(separator: " ")
    }

    /// `text` as one POSIX shell word: in single quotes, each `'` written `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Refuses what neither target can hold: line breaks and other control characters.
    static func check(_ arguments: [String]) throws {
        for argument in arguments where argument.unicodeScalars.contains(where: isControl) {
            let shown = String(String.UnicodeScalarView(argument.unicodeScalars.map { isControl($0) ? "?" : $0 }))
            throw CLIError.usage("cannot write '\(shown)' into a crontab line or a systemd unit: it holds a line break or another control character")
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
