import Foundation

/// What the `suite` command and the web app read from their environment, read one way by both:
/// the store folder, the user, the providers' addresses and key, and the version and user agent
/// they announce. A value made from a process's environment variables (or any other, for tests).
public struct SuiteEnvironment: Sendable {
    /// Suite's version (`suite --version`, the user agents).
    public static let version = "0.1.0"

    /// The environment variables read.
    public let variables: [String: String]

    public init(_ variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    // MARK: - The store folder

    /// The store folder's path: `option` (`--store-dir`), else `$SUITE_HOME`, else
    /// `$XDG_DATA_HOME/suite`, else `~/.local/share/suite`. Empty values count as unset; a
    /// relative `$XDG_DATA_HOME` is ignored, as the XDG spec says; a leading `~` in the option or
    /// `$SUITE_HOME` is the home folder. Relative when given so.
    public func storeFolderPath(option: String?) throws(SuiteEnvironmentError) -> String {
        if let option, !option.isEmpty { return expandingTilde(option) }
        if let home = variables["SUITE_HOME"], !home.isEmpty { return expandingTilde(home) }
        if let xdg = variables["XDG_DATA_HOME"], xdg.hasPrefix("/") { return Self.joined(xdg, "suite") }
        guard let home = variables["HOME"], !home.isEmpty else { throw .noStoreFolder }
        return Self.joined(home, ".local/share/suite")
    }

    /// ``storeFolderPath(option:)`` as a file URL.
    public func storeFolder(option: String?) throws(SuiteEnvironmentError) -> URL {
        URL(fileURLWithPath: try storeFolderPath(option: option))
    }

    /// `~` or `~/…` with the home folder in front; anything else as it is.
    public func expandingTilde(_ path: String) -> String {
        if path == "~" || path.hasPrefix("~/"), let home = variables["HOME"], !home.isEmpty {
            return home + path.dropFirst()
        }
        return path
    }

    /// `folder` and `name` joined as text (without `URL.appendingPathComponent`, whose first use
    /// scans every protocol conformance record of the binary: about 0.1 ms of each start).
    public static func joined(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    // MARK: - The user

    /// Whose favourites, notes and schedule: `option` (`--user`), else `$USER`, else `$LOGNAME`,
    /// else "default".
    public func user(option: String? = nil) -> String {
        [option, variables["USER"], variables["LOGNAME"]].compactMap { $0 }.first { !$0.isEmpty } ?? "default"
    }

    // MARK: - Providers

    /// A service Suite fetches from, with its environment variable and default address.
    public enum Provider: String, Sendable, CaseIterable {
        case overpass, yelp, nominatim, openLibrary

        /// The variable that points it elsewhere (a mirror, or a test's loopback server).
        public var variable: String {
            switch self {
            case .overpass: "SUITE_OVERPASS_URL"
            case .yelp: "SUITE_YELP_URL"
            case .nominatim: "SUITE_NOMINATIM_URL"
            case .openLibrary: "SUITE_OPENLIBRARY_URL"
            }
        }

        /// The real service.
        public var defaultURL: String {
            switch self {
            case .overpass: "https://overpass-api.de/api"
            case .yelp: "https://api.yelp.com/v3"
            case .nominatim: "https://nominatim.openstreetmap.org"
            case .openLibrary: "https://openlibrary.org"
            }
        }
    }

    /// The provider's address: `option` (a command's flag), else its variable, else the real
    /// service; refused unless it is an http(s) URL.
    public func url(of provider: Provider, option: String? = nil) throws(SuiteEnvironmentError) -> URL {
        let value = option ?? variables[provider.variable] ?? provider.defaultURL
        guard let url = URL(string: value), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw .notHTTP(option == nil && variables[provider.variable] != nil ? provider.variable : nil, value)
        }
        return url
    }

    /// Yelp's API key (`$YELP_API_KEY`; empty when unset).
    public var yelpAPIKey: String { variables["YELP_API_KEY"] ?? "" }

    /// The User-Agent Suite's `app` sends to a service (OpenStreetMap's and Open Library's
    /// policies ask for one that names the program).
    public static func userAgent(_ app: String) -> String {
        "suite-\(app)/\(version) (Suite personal productivity tools; https://github.com/suite)"
    }
}

/// What ``SuiteEnvironment`` refuses, as one line.
public enum SuiteEnvironmentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No `--store-dir`, `$SUITE_HOME`, `$XDG_DATA_HOME` or `$HOME`.
    case noStoreFolder
    /// A provider address that is not an http(s) URL (and the variable it came from, if any).
    case notHTTP(String?, String)

    public var description: String {
        switch self {
        case .noStoreFolder: "cannot find the store folder: set --store-dir, SUITE_HOME or HOME"
        case .notHTTP(let variable?, let value): "\(variable) '\(value)' is not an http(s) URL"
        case .notHTTP(nil, let value): "'\(value)' is not an http(s) URL"
        }
    }
}
