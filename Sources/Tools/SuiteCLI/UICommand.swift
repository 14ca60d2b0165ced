import ArgumentParser
import Foundation

/// `suite ui`: starts the local web app (`suite-web`) on the same store folder, when the web
/// package's binary is installed (beside `suite`, else on $PATH); otherwise says how to get it.
struct UICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Open the four apps in a browser (runs 'suite-web' on this store folder).",
        discussion: """
            Prints the URL to open (with this run's token) and serves until Ctrl-C. Needs \
            suite-web beside suite or on your PATH: Scripts/install (or the Debian package) \
            installs both.

            Example:
              suite ui
              suite ui --listen 127.0.0.1:8422
              suite ui --tile-url https://tiles.example.org/{z}/{x}/{y}.png
            """)

    @OptionGroup var options: TextOptions
    @Option(help: ArgumentHelp("A loopback address to listen on (port 0 picks a free one).", valueName: "host:port"))
    var listen: String?
    @Option(name: .customLong("tile-url"), help: ArgumentHelp(
        "Where the places map's tiles come from (default: OpenStreetMap's); https, with {z}, {x} and {y}.", valueName: "template"))
    var tileURL: String?

    func run() throws {
        let folder = try options.storeFolder()
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("suite-web")
        // The one installed with this suite first (Scripts/install, the package), then PATH's.
        guard let web = (FileManager.default.isExecutableFile(atPath: beside.path) ? beside : nil) ?? Executables.find("suite-web") else {
            throw CLIError.unavailable("'suite ui' needs suite-web beside suite or on your PATH: Scripts/install installs both")
        }
        let arguments = [web.path, "--store-dir", folder.path] + (listen.map { ["--listen", $0] } ?? [])
            + (tileURL.map { ["--tile-url", $0] } ?? [])
        // The web app takes over this process: Ctrl-C and SIGTERM reach it directly.
        let argv = arguments.map { strdup($0) } + [nil]
        execv(web.path, argv)
        throw CLIError.unavailable("cannot run \(web.path): \(String(cString: strerror(errno)))")
    }
}
