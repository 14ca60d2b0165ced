import Foundation

/// Every option of `serve`, `invite`, `compact`, `backup`, `restore` and `migrate` can also come from the environment, as
/// self-hosted servers are configured: `--quota-mb 512` is `SUITE_SERVER_QUOTA_MB=512`, a flag
/// such as `--behind-proxy` is `SUITE_SERVER_BEHIND_PROXY=1`. The command line wins.
package enum EnvironmentOptions {
    /// One option that the environment may set.
    package struct Option: Sendable, Hashable {
        /// The long name, without dashes.
        package var name: String
        /// Whether it is a flag (set by 1, true or yes).
        package var isFlag: Bool

        /// The environment variable.
        package var variable: String {
            "SUITE_SERVER_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        }
    }

    static let storage = [Option(name: "data-dir", isFlag: false), Option(name: "database", isFlag: false)]

    /// The options each subcommand takes from the environment.
    package static let bySubcommand: [String: [Option]] = [
        "serve": storage + ["listen", "compaction-grace-days", "max-connections", "connections-per-address", "header-timeout",
                            "body-timeout", "idle-timeout", "signup", "signups-per-address", "quota-mb", "tls-cert", "tls-key"].map { Option(name: $0, isFlag: false) }
            + [Option(name: "behind-proxy", isFlag: true)],
        "invite": storage + [Option(name: "days", isFlag: false)],
        "compact": storage + [Option(name: "grace-days", isFlag: false)],
        "backup": storage,
        "restore": storage,
        "migrate": [Option(name: "from", isFlag: false), Option(name: "to", isFlag: false)],
    ]

    /// The arguments with what the environment sets and the command line does not.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - environment: The process environment.
    /// - Returns: The arguments, with `--name value` (or `--name`) appended for each variable set.
    package static func apply(to arguments: [String], environment: [String: String]) -> [String] {
        guard let subcommand = arguments.first, let options = bySubcommand[subcommand] else { return arguments }
        var result = arguments
        for option in options {
            guard let value = environment[option.variable], !value.isEmpty else { continue }
            let given = arguments.contains { $0 == "--\(option.name)" || $0.hasPrefix("--\(option.name)=") }
            if given { continue }
            if option.isFlag {
                if ["1", "true", "yes"].contains(value.lowercased()) { result.append("--\(option.name)") }
            } else {
                result += ["--\(option.name)", value]
            }
        }
        return result
    }

    /// The lines `--help` shows for a subcommand's variables.
    package static func help(for subcommand: String) -> String {
        let names = (bySubcommand[subcommand] ?? []).map { "\($0.variable) (--\($0.name))" }
        return "Every option can also be set in the environment (the command line wins): " + names.joined(separator: ", ")
            + ". Also: SUITE_SERVER_HOME (the SQLite data folder when none is given), LOG_LEVEL (trace, debug, info, notice, warning, error, critical)."
    }
}
