/// An address to listen on, as `--listen HOST:PORT` of `suite-server serve` and `suite-web` gives
/// it (`[::1]:PORT` for an IPv6 address; port 0 picks a free port). Each command line declares its
/// `ExpressibleByArgument` conformance over ``init(argument:)``.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The default: loopback, port 8421.
    public static let standard = ListenAddress(host: "127.0.0.1", port: 8421)

    /// The host name or address to bind.
    public var host: String
    /// The port (0 for any free one).
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPV6]:PORT`.
    public init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"), let port = Int(argument[argument.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = argument[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = host.dropFirst().dropLast()
        }
        guard !host.isEmpty, !host.contains("[") && !host.contains("]") else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// The address as a URL authority with another port (the bound one).
    ///
    /// - Parameter port: The port to show.
    /// - Returns: `HOST:PORT`, with brackets around an IPv6 address.
    public func authority(port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public var description: String { authority(port: port) }

    /// Whether the address is this machine only (127.0.0.0/8, ::1, localhost).
    public var isLoopback: Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1"
    }
}
