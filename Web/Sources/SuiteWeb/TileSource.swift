import Foundation

/// Where the places map's tiles come from: a URL template such as OpenStreetMap's
/// `https://tile.openstreetmap.org/{z}/{x}/{y}.png`, and the one origin the pages let images come
/// from (the Content-Security-Policy's `img-src`).
package struct TileSource: Sendable, Equatable {
    /// OpenStreetMap's standard tiles: light interactive use, with the attribution shown
    /// (OpenStreetMap's tile usage policy).
    package static let openStreetMap = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    /// What the map credits for its tiles.
    package static let attribution = "© OpenStreetMap contributors"

    /// OpenStreetMap's standard tiles, the default (a test checks it is what ``init(_:)`` makes of
    /// ``openStreetMap``).
    package static let standard = TileSource(template: openStreetMap, origin: "https://tile.openstreetmap.org")

    /// The template, with `{z}`, `{x}` and `{y}` (as Leaflet reads it).
    package let template: String
    /// `scheme://host[:port]` of the template: the only place tiles load from.
    package let origin: String

    /// Checks a template: it names `{z}`, `{x}` and `{y}` (and no other `{…}`), is an `https` URL
    /// with a host, or `http` to a loopback host (a tile server on this machine), without a user
    /// name, password or fragment.
    ///
    /// - Parameter template: the URL template.
    /// - Throws: ``TileSourceError`` saying what is wrong and what is expected.
    package init(_ template: String) throws(TileSourceError) {
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            throw TileSourceError("'\(template)' has no \(placeholder): give a template like \(Self.openStreetMap)")
        }
        let filled = template.replacingOccurrences(of: "{z}", with: "0").replacingOccurrences(of: "{x}", with: "0")
            .replacingOccurrences(of: "{y}", with: "0")
        if filled.contains("{") || filled.contains("}") {
            throw TileSourceError("'\(template)' holds a placeholder other than {z}, {x} and {y}")
        }
        guard filled.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f && !"\"'<>\\^`|".unicodeScalars.contains($0) }),
              let components = URLComponents(string: filled), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased(), !host.isEmpty
        else {
            throw TileSourceError("'\(template)' is not a URL template like \(Self.openStreetMap)")
        }
        guard components.user == nil, components.password == nil, components.fragment == nil else {
            throw TileSourceError("'\(template)' has a user name, password or #fragment: give the tile server's plain address")
        }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let loopback = host == "localhost" || host == "[::1]" || host == "::1"
            || (octets.count == 4 && octets.first == "127" && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil })
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw TileSourceError("'\(template)' is not https: tiles come over https, or over http only from this machine (127.0.0.1, [::1], localhost)")
        }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        self.template = template
        origin = "\(scheme)://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }

    private init(template: String, origin: String) {
        self.template = template
        self.origin = origin
    }
}

/// A tile URL template that cannot be used, and why (one line).
package struct TileSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    init(_ description: String) { self.description = description }
}
