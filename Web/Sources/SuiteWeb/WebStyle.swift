import HTTPTypes
import Hummingbird

/// Suite's look: one hand-written style sheet (`Resources/suite.css`), served as `/suite.css`; the
/// icons are SVG symbols drawn once per page (the `sprite` template).
///
/// Phone first: below 600 px wide the four apps sit in a tab bar at the bottom of the screen, titles
/// are large and every control is at least 44 px tall; wider, the tabs move into the header and the
/// pages use the width. Light and dark follow the system (`prefers-color-scheme`). The colours
/// are the seeds' own: green ✓ and red ! for a business model's sections, red pins for places you
/// have not rated and blue for yours.
enum WebStyle {
    static let css = WebTemplates.text(PackageResources.suite_css)
}

/// The style sheet and the script at addresses that change with their content
/// (`/suite.css?v=…`), so a browser keeps them (`immutable`) instead of fetching them for every
/// page, and a new version is fetched at once.
enum WebAssets {
    static let styleURL = "/suite.css?v=" + version(WebStyle.css)
    static let scriptURL = "/live.js?v=" + version(WebScript.live)
    /// How long a browser keeps them (a year; the address changes with the content).
    static let cacheControl = "private, max-age=31536000, immutable"

    /// A file the app serves as it is (style sheet, script, icon, manifest): its bytes, type and
    /// how long a browser may keep it (by default ``cacheControl``).
    static func response(_ body: ByteBuffer, type: String, cache: String = cacheControl) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = cache
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// FNV-1a (64 bits) of the text, in hexadecimal: a version, not a secret.
    static func version(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
