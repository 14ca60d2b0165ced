import ArgumentParser
import Foundation
import SuiteEnvironment

/// The options every store-using command takes, as values: what command bodies use, whether
/// ArgumentParser or the fast path (``FastPath``) read them.
protocol StoreOptions {
    var storeDir: String? { get }
    var json: Bool { get }
}

/// The options of a store-using command that can print JSON: the store, `--json` and `--color`.
/// A command declares `--json` only when it prints one JSON document with it; the others take
/// ``TextOptions``, so ArgumentParser refuses `--json` there as an unknown option (exit 64).
struct CommonOptions: ParsableArguments, StoreOptions {
    @Option(name: .customLong(.storeDir), help: ArgumentHelp(
        "The store folder (else $SUITE_HOME, else $XDG_DATA_HOME/suite, else ~/.local/share/suite).",
        valueName: "dir"))
    var storeDir: String?

    @Flag(name: .customLong(.json), help: "Print one JSON document to stdout instead of text.")
    var json = false

    @OptionGroup var color: ColorOption
}

/// The options of a store-using command that prints only text: the store, no `--json`.
struct TextOptions: ParsableArguments, StoreOptions {
    @Option(name: .customLong(.storeDir), help: ArgumentHelp(
        "The store folder (else $SUITE_HOME, else $XDG_DATA_HOME/suite, else ~/.local/share/suite).",
        valueName: "dir"))
    var storeDir: String?

    @OptionGroup var color: ColorOption

    var json: Bool { false }
}

/// ``StoreOptions`` as a plain value: what the run functions shared with the fast path take,
/// made by ``FastPath`` or from the parsed options (``StoreOptions/plain``).
struct PlainStoreOptions: StoreOptions {
    var storeDir: String?
    var json = false
}

extension StoreOptions {
    /// These options as a plain value.
    var plain: PlainStoreOptions { PlainStoreOptions(storeDir: storeDir, json: json) }

    /// The store folder chosen by the precedence rules.
    func storeFolder() throws -> URL {
        try StoreLocation.folder(storeDir: storeDir, environment: Terminal.environment)
    }

    /// The URL of `fileName` inside the store folder.
    func storeFile(_ fileName: String) throws -> URL {
        URL(fileURLWithPath: StoreLocation.joined(try storeFolder().path, fileName))
    }

    /// The path of `fileName` inside the store folder, as `storeFile(_:).standardizedFileURL.path`
    /// gives it (the path a store opened at that URL has). Made as text when the folder is a plain
    /// absolute path, for which that is the same text: a URL's `path` costs a scan of the
    /// binary's conformance records on its first use.
    func storeFilePath(_ fileName: String) throws -> String {
        let folder = try StoreLocation.folderPath(storeDir: storeDir, environment: Terminal.environment)
        if StoreLocation.isPlainAbsolute(folder) { return StoreLocation.joined(folder, fileName) }
        return try storeFile(fileName).standardizedFileURL.path
    }
}

/// Where the store folder is.
enum StoreLocation {
    /// `--store-dir`, else `$SUITE_HOME`, else `$XDG_DATA_HOME/suite`, else `~/.local/share/suite`.
    /// Empty values count as unset; a relative XDG path is ignored, as the XDG spec says.
    static func folder(storeDir: String?, environment: [String: String]) throws -> URL {
        URL(fileURLWithPath: try folderPath(storeDir: storeDir, environment: environment))
    }

    /// ``folder(storeDir:environment:)`` as the text it is made from (relative when given so):
    /// ``SuiteEnvironment``'s rule, which the web app follows too.
    static func folderPath(storeDir: String?, environment: [String: String]) throws -> String {
        do {
            return try SuiteEnvironment(environment).storeFolderPath(option: storeDir)
        } catch {
            throw CLIError.usage(error.description)
        }
    }

    /// An absolute path without empty, `.` or `..` components (a trailing `/` aside), outside
    /// `/private` and `/var/automount` (Foundation's standardizing drops those prefixes when the
    /// shorter path exists): one that a file URL's standardized `path` gives back unchanged.
    static func isPlainAbsolute(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        for prefix in ["/private", "/var/automount"] where path == prefix || path.hasPrefix(prefix + "/") { return false }
        var components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        if components.last?.isEmpty == true { components = components.dropLast() }
        return !components.contains { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }
    }

    /// `folder` and `name` joined as text (see ``SuiteEnvironment/joined(_:_:)``).
    static func joined(_ folder: String, _ name: String) -> String {
        SuiteEnvironment.joined(folder, name)
    }
}
