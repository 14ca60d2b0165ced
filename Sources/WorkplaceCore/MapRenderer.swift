import Foundation
import SuiteStorage

/// Draws places around a point as a self-contained SVG: pins in their colours, the user's
/// location, names, and a scale bar.
public enum MapRenderer {
    /// The SVG document.
    ///
    /// - Parameters:
    ///   - places: the places to draw (with their distances).
    ///   - center: the user's location, drawn at the middle.
    ///   - radius: metres from the middle to the edge.
    ///   - size: the picture's width and height in pixels.
    public static func svg(_ places: [NearbyPlace], center: Coordinate, radius: Double, size: Int = 800) -> String {
        let size = Double(max(size, 200))
        let half = size / 2
        let metresPerPixel = max(radius, 50) * 1.1 / half
        func project(_ coordinate: Coordinate) -> (Double, Double) {
            var dLon = coordinate.longitude - center.longitude
            if dLon > 180 { dLon -= 360 }
            if dLon < -180 { dLon += 360 }
            let x = dLon * .pi / 180 * Geo.earthRadius * cos(center.latitude * .pi / 180)
            let y = (coordinate.latitude - center.latitude) * .pi / 180 * Geo.earthRadius
            return (half + x / metresPerPixel, half - y / metresPerPixel)
        }
        var body: [String] = []
        body.append("<rect width=\"\(Int(size))\" height=\"\(Int(size))\" fill=\"#f4f1ea\"/>")
        body.append(String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#b8b2a3\" stroke-dasharray=\"6 4\"/>", half, half, radius / metresPerPixel))
        for item in places.sorted(by: { $0.distance > $1.distance }) {
            let (x, y) = project(item.place.coordinate)
            let color = item.place.pinColor
            let title = escape("\(item.place.name) — \(item.place.type.rawValue), \(Int(item.distance.rounded())) m")
            body.append(String(format: "<g class=\"pin\" data-id=\"%lld\" data-color=\"%@\"><title>%@</title>", item.place.id, color.rawValue, title)
                + String(format: "<path d=\"M%.1f %.1f l-7 -14 a8 8 0 1 1 14 0 z\" fill=\"%@\" stroke=\"#222\" stroke-width=\"1\"/>", x, y, color.hex)
                + String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-family=\"sans-serif\">%@</text></g>", x + 9, y - 12, escape(item.place.name)))
        }
        body.append(String(format: "<g class=\"you\"><title>You are here</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"#1d6fd8\" stroke=\"#fff\" stroke-width=\"3\"/></g>", half, half))
        // Scale bar: a round length near a quarter of the width.
        let target = size / 4 * metresPerPixel
        let magnitude = pow(10, floor(log10(target)))
        let length = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        let pixels = length / metresPerPixel
        let label = length >= 1000 ? "\(formatNumber(length / 1000)) km" : "\(Int(length)) m"
        body.append(String(format: "<g class=\"scale\"><rect x=\"20\" y=\"%.1f\" width=\"%.1f\" height=\"6\" fill=\"#222\"/><text x=\"20\" y=\"%.1f\" font-size=\"12\" font-family=\"sans-serif\">%@</text></g>",
                           size - 30, pixels, size - 36, label))
        body.append(String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" font-family=\"sans-serif\" text-anchor=\"end\" fill=\"#555\">Map data © OpenStreetMap contributors and Yelp where fetched</text>", size - 10, size - 10))
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(size))" height="\(Int(size))" viewBox="0 0 \(Int(size)) \(Int(size))">
            <title>Places to work around \(center.description)</title>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    static func formatNumber(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// Escapes text for XML content and attributes (``SuiteStorage/Markup``'s one escaper: the
    /// characters XML 1.0 forbids, U+FFFE and U+FFFF among them, are replaced, so the map is always
    /// well-formed).
    public static func escape(_ text: String) -> String { Markup.escape(text) }
}
