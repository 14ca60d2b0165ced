import Foundation

/// Debian's Leaflet (`libjs-leaflet`) and its clustering plug-in (`libjs-leaflet.markercluster`),
/// read once from their folder and served by the web app under `/leaflet/` at addresses that
/// change with their content (`/leaflet/leaflet.js?v=…`). Only the files named here are served:
/// nothing else of the folder, and no path. When one is missing or unreadable there is no
/// interactive map, and the places page shows the SVG map the core draws.
struct LeafletFiles: Sendable {
    /// A served file: its bytes, type and versioned address.
    struct File: Sendable {
        let data: Data
        let contentType: String
        let url: String
    }

    /// Debian's folder for both packages.
    static let debianFolder = URL(fileURLWithPath: "/usr/share/javascript/leaflet", isDirectory: true)

    /// The files served, by name (the same name in the folder and under `/leaflet/`).
    static let names: [String: String] = [
        "leaflet.js": "text/javascript; charset=utf-8",
        "leaflet.markercluster.js": "text/javascript; charset=utf-8",
        "leaflet.css": "text/css; charset=utf-8",
        "MarkerCluster.css": "text/css; charset=utf-8",
    ]

    let files: [String: File]

    /// Reads every file of ``names`` from `folder`.
    ///
    /// - Parameter folder: where the files are (``debianFolder`` unless a test says otherwise).
    /// - Returns: the files, or nil when one of them cannot be read.
    static func load(from folder: URL) -> LeafletFiles? {
        var files: [String: File] = [:]
        for (name, type) in names {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)), !data.isEmpty else { return nil }
            files[name] = File(data: data, contentType: type, url: "/leaflet/\(name)?v=" + WebAssets.version(data))
        }
        return LeafletFiles(files: files)
    }

    /// The versioned address of a file of ``names``.
    func url(_ name: String) -> String { files[name]?.url ?? "" }
}

/// The places map's settings: where tiles come from, and Debian's Leaflet when it is there.
package struct WebMap: Sendable {
    let tiles: TileSource
    let leaflet: LeafletFiles?

    /// - Parameters:
    ///   - tiles: the tile server (OpenStreetMap's standard tiles unless told otherwise).
    ///   - leafletFolder: where Leaflet and its clustering plug-in are (Debian's folder unless a
    ///     test says otherwise); without them the map stays the SVG picture.
    package init(tiles: TileSource, leafletFolder: URL? = nil) {
        self.tiles = tiles
        leaflet = LeafletFiles.load(from: leafletFolder ?? LeafletFiles.debianFolder)
    }

    /// OpenStreetMap's tiles and Debian's Leaflet.
    package static func standard() -> WebMap { WebMap(tiles: .standard) }
}

extension WebAssets {
    /// The places map's script, at an address that changes with its content.
    static let mapScriptURL = "/map.js?v=" + version(WebScript.map)

    /// FNV-1a (64 bits) of the bytes, in hexadecimal: a version, not a secret.
    static func version(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
