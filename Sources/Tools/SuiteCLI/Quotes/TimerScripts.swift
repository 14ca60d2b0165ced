import Foundation

/// The command lines `suite quotes schedule install` (and `bundle remind install`, `sync
/// install`) write: a crontab line and a systemd
/// `ExecStart=`, each quoted by its own target's rules so that every argument comes back
/// exactly, whatever it holds (`;`, `$`, quotes, `%`, spaces).
///
/// A line break or another control character cannot be written safely into either file (it
/// would end the crontab line or add a directive to the unit), so such an argument is refused.
enum TimerScripts {
    /// This binary's absolute path: a bare name was found on PATH, a relative path is from here.
    static func binaryPath() -> String {
        let invoked = CLIContext.current.executable
        return invoked.contains("/") ? URL(fileURLWithPath: invoked).standardizedFileURL.path
            : ((invoked.isEmpty ? nil : Executables.find(invoked)) ?? Executables.find("suite"))?.path ?? "suite"
    }

    /// A timer that runs `arguments`: with `cron`, prints a crontab line (`cronTimes`, e.g.
    /// `* * * * *`); otherwise writes `<name>.service` and `<name>.timer` (`OnCalendar=calendar`)
    /// into the systemd user folder and says how to start them.
    static func install(name: String, summary: String, arguments: [String], calendar: String, cronTimes: String, cron: Bool) throws {
        if cron {
            print(try cronLine(arguments, uid: getuid(), times: cronTimes))
            return
        }
        let execStart = try execStart(arguments)
        let folder = try userUnitFolder()
        try AtomicFile.write(Data("""
            [Unit]
            Description=\(summary)

            [Service]
            Type=oneshot
            ExecStart=\(execStart)

            """.utf8), to: folder + "/\(name).service")
        try AtomicFile.write(Data("""
            [Unit]
            Description=\(summary) (timer)

            [Timer]
            OnCalendar=\(calendar)
            Persistent=true

            [Install]
            WantedBy=timers.target

            """.utf8), to: folder + "/\(name).timer")
        print("Wrote \(folder)/\(name).service and \(name).timer. Start them with:")
        print("  systemctl --user daemon-reload && systemctl --user enable --now \(name).timer")
    }

    /// A service that keeps `arguments` running: with `cron`, prints a crontab line that starts
    /// it at boot; otherwise writes `<name>.service` (restarted when it stops with an error)
    /// into the systemd user folder and says how to start it.
    static func installService(name: String, summary: String, arguments: [String], cron: Bool) throws {
        if cron {
            print(try cronLine(arguments, uid: getuid(), times: "@reboot"))
            return
        }
        let execStart = try execStart(arguments)
        let folder = try userUnitFolder()
        try AtomicFile.write(Data("""
            [Unit]
            Description=\(summary)

            [Service]
            Type=simple
            ExecStart=\(execStart)
            Restart=on-failure
            RestartSec=30

            [Install]
            WantedBy=default.target

            """.utf8), to: folder + "/\(name).service")
        print("Wrote \(folder)/\(name).service. Start it with:")
        print("  systemctl --user daemon-reload && systemctl --user enable --now \(name).service")
    }

    /// `$XDG_CONFIG_HOME/systemd/user` (else `~/.config/systemd/user`), created.
    private static func userUnitFolder() throws -> String {
        let environment = Terminal.environment
        let home = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        let folder = home + "/systemd/user"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A crontab line running `arguments` every minute with the session bus of `uid`.
    ///
    /// cron hands the command to `/bin/sh -c` after turning each `%` into a line break and each
    /// `\%` into `%`; so every argument is single-quoted for the shell, then each `%` escaped.
    /// - Throws: ``CLIError/usage(_:)`` for an argument with a control character.
    static func cronLine(_ arguments: [String], uid: UInt32, times: String = "* * * * *") throws -> String {
        try check(arguments)
        // Each % leaves the single quotes as \% ('a\'\%'b' is a\%b): cron gives sh a bare %,
        // and a backslash before it inside the quotes cannot turn cron's \% back into a line break.
        let command = arguments.map { shellQuoted($0).replacingOccurrences(of: "%", with: "'\\%'") }.joined(separator: " ")
        return "\(times) DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/\(uid)/bus \(command)"
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
