import ArgumentParser
import Foundation

/// `suite ui`: starts the local web app (`suite-web`) on the same store folder, when the web
/// package's binary is installed (beside `suite`, else on $PATH); otherwise says how to get it.
struct UICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Open the four apps in a browser (runs 'suite-web' on this store folder).",
        discussion: """
            Prints the URL to open and serves until Ctrl-C. On loopback (the default) the URL \
            carries this run's token. To reach it from a phone, set a password (suite ui password) \
            and listen on another address with --tls-cert and --tls-key, or on loopback behind a \
            proxy on this machine with --behind-proxy: browsers then sign in. Needs suite-web beside suite or on \
            your PATH: Scripts/install (or the Debian package) installs both.

            Example:
              suite ui
              suite ui --listen 127.0.0.1:8422
              suite ui --tile-url https://tiles.example.org/{z}/{x}/{y}.png
              suite ui password --stdin < password.txt
              suite ui --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem
              suite ui --listen 127.0.0.1:8422 --behind-proxy
            """,
        subcommands: [UIPasswordCommand.self])

    @OptionGroup var options: TextOptions
    @Option(help: ArgumentHelp("The address to listen on (port 0 picks a free one); off loopback it needs a password and --tls-cert and --tls-key.", valueName: "host:port"))
    var listen: String?
    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve https with this certificate chain (PEM).", valueName: "file"))
    var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The certificate's private key (PEM).", valueName: "file"))
    var tlsKey: String?
    @Flag(name: .customLong("behind-proxy"), help: "A proxy on this machine (Caddy, nginx) speaks TLS and forwards here.")
    var behindProxy = false
    @Flag(help: "Every minute, push the quote and the reminders that are due to the subscribed browsers (for a machine without suite's timers).")
    var deliver = false
    @Option(name: .customLong("tile-url"), help: ArgumentHelp(
        "Where the places map's tiles come from (default: OpenStreetMap's): https, or http from this machine only; with {z}, {x} and {y}.", valueName: "template"))
    var tileURL: String?

    func run() throws {
        let folder = try options.storeFolder()
        var arguments = ["--store-dir", folder.path] + (listen.map { ["--listen", $0] } ?? []) + (tileURL.map { ["--tile-url", $0] } ?? [])
        arguments += (tlsCertificate.map { ["--tls-cert", $0] } ?? []) + (tlsKey.map { ["--tls-key", $0] } ?? []) + (behindProxy ? ["--behind-proxy"] : []) + (deliver ? ["--deliver"] : [])
        try Self.exec(arguments)
    }

    /// Runs suite-web with `arguments` in place of this process.
    static func exec(_ arguments: [String]) throws {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("suite-web")
        // The one installed with this suite first (Scripts/install, the package), then PATH's.
        guard let web = (FileManager.default.isExecutableFile(atPath: beside.path) ? beside : nil) ?? Executables.find("suite-web") else {
            throw CLIError.unavailable("'suite ui' needs suite-web beside suite or on your PATH: Scripts/install installs both")
        }
        let arguments = [web.path] + arguments
        // The web app takes over this process: Ctrl-C and SIGTERM reach it directly.
        let argv = arguments.map { strdup($0) } + [nil]
        execv(web.path, argv)
        throw CLIError.unavailable("cannot run \(web.path): \(String(cString: strerror(errno)))")
    }
}

/// `suite ui password`: sets the password browsers sign in with off loopback (runs `suite-web password`).
struct UIPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password",
        abstract: "Set the password browsers sign in with when suite ui is reached off loopback.",
        discussion: """
            Kept only as a slow hash in the store folder. At least 12 characters. Setting it signs \
            every browser out. With --stdin it is read from standard input; otherwise asked twice \
            on the terminal.

            Example:
              suite ui password
              printf '%s\\n' "$PASSWORD" | suite ui password --stdin
            """)

    /// `suite ui`'s own options (`--store-dir` among them), wherever they stand.
    @ParentCommand var ui: UICommand
    @Flag(name: .customLong("stdin"), help: "Read the password from standard input (one line).")
    var fromStandardInput = false

    func run() throws {
        try UICommand.exec(["password", "--store-dir", try ui.options.storeFolder().path] + (fromStandardInput ? ["--stdin"] : []))
    }
}
