import Foundation

/// Distances and bounding boxes on a spherical Earth.
public enum Geo {
    /// The mean Earth radius in metres.
    public static let earthRadius = 6_371_008.8

    /// The great-circle distance in metres (haversine).
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// A latitude/longitude box that holds every point within `radius` metres of `center`, as one
    /// or two boxes (two when it crosses the antimeridian). Near a pole it spans all longitudes.
    static func boxes(around center: Coordinate, radius: Double) -> [(minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)] {
        let angular = radius / earthRadius
        let dLat = angular * 180 / .pi
        let minLat = max(-90, center.latitude - dLat)
        let maxLat = min(90, center.latitude + dLat)
        if minLat <= -90 || maxLat >= 90 || angular >= .pi / 2 {
            return [(minLat, maxLat, -180, 180)]
        }
        // The widest longitude span of the circle (exact for a sphere).
        let latRad = center.latitude * .pi / 180
        let ratio = sin(angular) / cos(latRad)
        guard ratio < 1 else { return [(minLat, maxLat, -180, 180)] }
        let dLon = asin(ratio) * 180 / .pi
        let minLon = center.longitude - dLon, maxLon = center.longitude + dLon
        if minLon < -180 { return [(minLat, maxLat, minLon + 360, 180), (minLat, maxLat, -180, maxLon)] }
        if maxLon > 180 { return [(minLat, maxLat, minLon, 180), (minLat, maxLat, -180, maxLon - 360)] }
        return [(minLat, maxLat, minLon, maxLon)]
    }

    /// Reads `1.5km`, `800m` or a plain number of metres.
    public static func parseDistance(_ text: String) throws(WorkplaceError) -> Double {
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = lower
        var scale = 1.0
        if lower.hasSuffix("km") { number = String(lower.dropLast(2)); scale = 1000 }
        else if lower.hasSuffix("m") { number = String(lower.dropLast()) }
        else if lower.hasSuffix("mi") { number = String(lower.dropLast(2)); scale = 1609.344 }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else {
            throw .invalidQuery("'\(text)' is not a distance like 1.5km or 800m")
        }
        let metres = value * scale
        guard metres <= 20_100_000 else { throw .invalidQuery("'\(text)' is more than halfway round the Earth") }
        return metres
    }
}
