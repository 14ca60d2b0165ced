import Foundation
import SuiteMarkup
import SuiteStorage

/// Draws places around a point as a self-contained SVG: pins in their colours over a square
/// map, your location as a target under them, names placed where they fit, and below the map a
/// legend, a numbered key for the pins whose names did not fit, a scale bar and the attribution
/// of the providers whose places are shown.
public enum MapRenderer {
    /// A rectangle on the picture.
    struct Box {
        var minX, minY, maxX, maxY: Double

        func overlaps(_ other: Box) -> Bool {
            minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
        }

        func inside(_ other: Box) -> Bool {
            minX >= other.minX && maxX <= other.maxX && minY >= other.minY && maxY <= other.maxY
        }
    }

    /// Names longer than this many characters go to the key rather than onto the map.
    static let longestLabel = 30
    static let labelSize = 12.0
    static let keySize = 11.0
    static let font = "font-family=\"DejaVu Sans, Verdana, sans-serif\""
    static let halo = "stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""

    /// The SVG document.
    ///
    /// - Parameters:
    ///   - places: the places to draw (with their distances).
    ///   - center: the user's location, drawn at the middle.
    ///   - radius: metres from the middle to the edge.
    ///   - size: the map's width and height in pixels (the legend and key go below it).
    /// - Returns: the document, UTF-8 text; every name passes through ``escape(_:)``.
    public static func svg(_ places: [NearbyPlace], center: Coordinate, radius: Double, size: Int = 800) -> String {
        let size = Double(max(size, 320))
        let half = size / 2
        let metresPerPixel = max(radius, 50) * 1.1 / half
        let mapBox = Box(minX: 2, minY: 2, maxX: size - 2, maxY: size - 2)
        func project(_ coordinate: Coordinate) -> (x: Double, y: Double) {
            var dLon = coordinate.longitude - center.longitude
            if dLon > 180 { dLon -= 360 }
            if dLon < -180 { dLon += 360 }
            let x = dLon * .pi / 180 * Geo.earthRadius * cos(center.latitude * .pi / 180)
            let y = (coordinate.latitude - center.latitude) * .pi / 180 * Geo.earthRadius
            return (half + x / metresPerPixel, half - y / metresPerPixel)
        }

        // Labels: the places you made yours first, then the nearest; each takes the first spot
        // beside its pin that stays inside the map and clear of every pin, label and the marker.
        let positions = places.map { project($0.place.coordinate) }
        var taken: [Box] = positions.map { Box(minX: $0.x - 8, minY: $0.y - 25, maxX: $0.x + 8, maxY: $0.y) }
        let markerBox = Box(minX: half - 10, minY: half - 10, maxX: half + 10, maxY: half + 10)
        taken.append(markerBox)
        var labels: [Int: (x: Double, y: Double, anchor: String)] = [:]
        var labelBoxes: [Box] = []
        let order = places.indices.sorted { a, b in
            let savedA = places[a].place.pinState == .saved, savedB = places[b].place.pinState == .saved
            return savedA != savedB ? savedA : (places[a].distance, a) < (places[b].distance, b)
        }
        for index in order {
            let name = places[index].place.name
            guard name.count <= longestLabel, !name.contains(where: \.isNewline) else { continue }
            let (x, y) = positions[index]
            let width = textWidth(name, size: labelSize)
            let candidates: [(Box, Double, Double, String)] = [
                (Box(minX: x + 10, minY: y - 24, maxX: x + 10 + width, maxY: y - 10), x + 10, y - 13, "start"),
                (Box(minX: x - 10 - width, minY: y - 24, maxX: x - 10, maxY: y - 10), x - 10, y - 13, "end"),
                (Box(minX: x - width / 2, minY: y - 42, maxX: x + width / 2, maxY: y - 27), x, y - 30, "middle"),
                (Box(minX: x - width / 2, minY: y + 2, maxX: x + width / 2, maxY: y + 16), x, y + 13, "middle"),
                (Box(minX: x + 10, minY: y - 12, maxX: x + 10 + width, maxY: y + 2), x + 10, y - 1, "start"),
                (Box(minX: x - 10 - width, minY: y - 12, maxX: x - 10, maxY: y + 2), x - 10, y - 1, "end"),
            ]
            for (box, textX, textY, anchor) in candidates where box.inside(mapBox) && !taken.contains(where: { $0.overlaps(box) }) {
                labels[index] = (textX, textY, anchor)
                taken.append(box)
                labelBoxes.append(box)
                break
            }
        }
        // The pins whose names did not fit are numbered, nearest first, and listed in the key.
        var numbers: [Int: Int] = [:]
        for index in places.indices.sorted(by: { (places[$0].distance, $0) < (places[$1].distance, $1) }) where labels[index] == nil {
            numbers[index] = numbers.count + 1
        }
        // Each number sits in its pin's head, or, where a neighbour's number is there already, in
        // a small tag beside it.
        var badges: [Int: (x: Double, y: Double, inHead: Bool)] = [:]
        var badgeBoxes: [Box] = []
        for (index, _) in numbers.sorted(by: { $0.value < $1.value }) {
            let (x, y) = positions[index]
            let spots = [(x, y - 17), (x + 15, y - 30), (x - 15, y - 30), (x + 17, y - 14), (x - 17, y - 14), (x, y - 38), (x + 28, y - 22), (x - 28, y - 22)]
            let chosen = spots.enumerated().first { _, spot in
                let box = Box(minX: spot.0 - 7, minY: spot.1 - 7, maxX: spot.0 + 7, maxY: spot.1 + 7)
                return box.inside(mapBox) && !box.overlaps(markerBox) && !badgeBoxes.contains { $0.overlaps(box) } && !labelBoxes.contains { $0.overlaps(box) }
            } ?? (0, spots[0])
            badges[index] = (chosen.1.0, chosen.1.1, chosen.0 == 0)
            badgeBoxes.append(Box(minX: chosen.1.0 - 7, minY: chosen.1.1 - 7, maxX: chosen.1.0 + 7, maxY: chosen.1.1 + 7))
        }

        var body: [String] = []
        body.append("<rect width=\"\(Int(size))\" height=\"\(Int(size))\" fill=\"#f4f1ea\"/>")
        body.append(String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#b8b2a3\" stroke-dasharray=\"6 4\"/>",
                           half, half, radius / metresPerPixel))
        // You are here: a black-and-white target under the pins, so no pin is ever hidden by it.
        body.append("<g class=\"you\"><title>You are here</title>\(marker(x: half, y: half))</g>")
        // Far pins first, so nearer ones are drawn on top.
        for index in places.indices.sorted(by: { (places[$0].distance, $0) > (places[$1].distance, $1) }) {
            let item = places[index]
            let (x, y) = positions[index]
            let color = item.place.pinColor
            let title = escape("\(item.place.name) — \(item.place.type.rawValue), \(Int(item.distance.rounded())) m")
            var group = String(format: "<g class=\"pin\" data-id=\"%lld\" data-color=\"%@\"><title>%@</title>", item.place.id.rawValue, color.rawValue, title)
            group += pin(x: x, y: y, color: color) + "</g>"
            body.append(group)
        }
        // Numbers over every pin, so a crowded pin's number is not hidden by its neighbour.
        for (index, number) in numbers.sorted(by: { $0.value < $1.value }) {
            guard let badge = badges[index] else { continue }
            let color = places[index].place.pinColor
            if !badge.inHead {
                body.append(String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7.5\" fill=\"#fff\" stroke=\"%@\" stroke-width=\"2\"/>", badge.x, badge.y, color.hex))
            }
            body.append(String(format: "<text class=\"number\" x=\"%.1f\" y=\"%.1f\" font-size=\"%@\" %@ font-weight=\"bold\" text-anchor=\"middle\" fill=\"%@\">%@</text>",
                               badge.x, badge.y + 3, number >= 100 ? "7" : "9", font, !badge.inHead || color == .yellow ? "#222" : "#fff", String(number)))
        }
        // Labels last, over every pin.
        for index in places.indices {
            guard let label = labels[index] else { continue }
            body.append(String(format: "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" %@ text-anchor=\"%@\" fill=\"#1a1a1a\" %@>%@</text>",
                               label.x, label.y, labelSize, font, label.anchor, halo, escape(places[index].place.name)))
        }

        // Below the map: legend, key, scale bar and attribution.
        var footer: [String] = []
        var y = size + 10
        footer.append(String(format: "<rect y=\"%.1f\" width=\"%.0f\" height=\"%@\" fill=\"#ffffff\"/>", size, size, "FOOTER_HEIGHT"))
        footer.append(String(format: "<line x1=\"0\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#b8b2a3\"/>", size + 0.5, size, size + 0.5))
        // Legend: what each mark means, with the chosen colours actually on the map.
        var entries: [(mark: String, label: String)] = [("red", "not rated yet"), ("blue", "rated by you")]
        let chosen = PinColor.allCases.filter { color in places.contains { $0.place.rating?.pinColor == color } }
        for color in chosen where color != .red && color != .blue { entries.append((color.rawValue, "your colour")) }
        entries.append(("you", "you are here"))
        var x = 14.0
        y += 26
        footer.append("<g class=\"legend\">")
        for entry in entries {
            let width = 20 + textWidth(entry.label, size: keySize) + 18
            if x + width > size - 10, x > 14 { x = 14; y += 26 }
            if entry.mark == "you" {
                footer.append(marker(x: x + 7, y: y - 5))
            } else if let color = PinColor(rawValue: entry.mark) {
                footer.append(pin(x: x + 7, y: y + 5, color: color))
            }
            footer.append(String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" %@ fill=\"#222\">%@</text>",
                                 x + 20, y, keySize, font, escape(entry.label)))
            x += width
        }
        footer.append("</g>")
        // The key: numbered pins and their names, in columns, long names wrapped.
        if !numbers.isEmpty {
            y += 24
            footer.append(String(format: "<text x=\"14\" y=\"%.1f\" font-size=\"%.0f\" %@ font-weight=\"bold\" fill=\"#222\">Numbered pins</text>", y, keySize, font))
            y += 4
            let columns = size >= 600 ? 2 : 1
            let columnWidth = (size - 28) / Double(columns)
            let keyed = numbers.sorted { $0.value < $1.value }
            let perColumn = (keyed.count + columns - 1) / columns
            var bottom = y
            for column in 0..<columns {
                var rowY = y
                for (index, number) in keyed.dropFirst(column * perColumn).prefix(perColumn) {
                    let left = 14 + Double(column) * columnWidth
                    rowY += 15
                    let lines = wrap(places[index].place.name, width: columnWidth - 34, size: keySize)
                    footer.append(String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" %@ font-weight=\"bold\" text-anchor=\"end\" fill=\"#222\">%@</text>",
                                         left + 22, rowY, keySize, font, String(number)))
                    var text = String(format: "<text class=\"key\" x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" %@ fill=\"#222\">", left + 28, rowY, keySize, font)
                    for (line, part) in lines.enumerated() {
                        text += String(format: "<tspan x=\"%.1f\" dy=\"%@\">%@</tspan>", left + 28, line == 0 ? "0" : "14", escape(part))
                    }
                    footer.append(text + "</text>")
                    rowY += Double(lines.count - 1) * 14
                }
                bottom = max(bottom, rowY)
            }
            y = bottom
        }
        // Scale bar: a round length near a quarter of the width.
        y += 30
        let target = size / 4 * metresPerPixel
        let magnitude = pow(10, floor(log10(target)))
        let length = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        let pixels = length / metresPerPixel
        let scale = length >= 1000 ? "\(formatNumber(length / 1000)) km" : "\(Int(length)) m"
        footer.append(String(format: "<g class=\"scale\"><rect x=\"14\" y=\"%.1f\" width=\"%.1f\" height=\"5\" fill=\"#222\"/><text x=\"14\" y=\"%.1f\" font-size=\"%.0f\" %@ fill=\"#222\">%@</text></g>",
                             y, pixels, y - 5, keySize, font, scale))
        // Attribution: only the providers whose places are on this map.
        var sources: [String] = []
        if places.contains(where: { $0.place.origin == .openStreetMap }) { sources.append("© OpenStreetMap contributors (ODbL)") }
        if places.contains(where: { $0.place.origin == .yelp }) { sources.append("Yelp") }
        if !sources.isEmpty {
            let attribution = "Place data " + sources.joined(separator: " · ")
            if 14 + pixels + 20 + textWidth(attribution, size: 10) > size - 10 { y += 18 }
            footer.append(String(format: "<text class=\"attribution\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" %@ text-anchor=\"end\" fill=\"#555\">%@</text>",
                                 size - 10, y + 5, font, escape(attribution)))
        }
        let height = (y + 16).rounded(.up)
        let footerText = footer.joined(separator: "\n").replacingOccurrences(of: "FOOTER_HEIGHT", with: String(Int(height - size)))
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(size))" height="\(Int(height))" viewBox="0 0 \(Int(size)) \(Int(height))">
            <title>Places to work around \(center.description)</title>
            \(body.joined(separator: "\n"))
            \(footerText)
            </svg>

            """
    }

    /// A teardrop pin whose point is at (x, y).
    static func pin(x: Double, y: Double, color: PinColor) -> String {
        String(format: "<path d=\"M%.1f %.1f l-7 -14 a8 8 0 1 1 14 0 z\" fill=\"%@\" stroke=\"#222\" stroke-width=\"1\"/>", x, y, color.hex)
    }

    /// The location marker: a white ring with a black centre on a soft halo, centred at (x, y).
    static func marker(x: Double, y: Double) -> String {
        String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"12\" fill=\"#111\" fill-opacity=\"0.15\"/>", x, y)
            + String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6.5\" fill=\"#fff\" stroke=\"#111\" stroke-width=\"2.5\"/>", x, y)
            + String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#111\"/>", x, y)
    }

    /// About how wide `text` is in a sans-serif font of `size` pixels (wide scripts and emoji
    /// count as a full em).
    static func textWidth(_ text: String, size: Double) -> Double {
        text.reduce(0.0) { width, character in
            let scalar = character.unicodeScalars.first?.value ?? 0
            return width + size * (scalar >= 0x1100 ? 1.0 : character.isUppercase ? 0.68 : 0.58)
        }
    }

    /// `text` cut into lines no wider than `width`, after a space where one is near; the pieces
    /// join back to the text exactly (whole characters, so a CR LF pair is never split).
    static func wrap(_ text: String, width: Double, size: Double) -> [String] {
        var lines: [String] = []
        var line: [Character] = []
        for character in text {
            if !line.isEmpty, textWidth(String(line) + String(character), size: size) > width {
                // Break after the last space of the line when there is one, else here.
                let cut = (line.lastIndex(where: \.isWhitespace).map { $0 + 1 }).flatMap { $0 < line.count ? $0 : nil } ?? line.count
                lines.append(String(line[..<cut]))
                line = Array(line[cut...])
            }
            line.append(character)
        }
        if !line.isEmpty || lines.isEmpty { lines.append(String(line)) }
        return lines
    }

    static func formatNumber(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// Escapes text for XML content and attributes (SuiteStorage's `Markup`, the one escaper: the
    /// characters XML 1.0 forbids, U+FFFE and U+FFFF among them, are replaced, so the map is always
    /// well-formed).
    public static func escape(_ text: String) -> String { Markup.escape(text) }
}
