import Foundation
import GRDB

/// How near-search results are ordered.
public enum PlaceSort: String, Codable, Sendable, Hashable, CaseIterable {
    /// Nearest first.
    case distance
    /// Best score (smoothed rating with distance decay) first.
    case score
}

/// A search for places near a point.
public struct PlaceQuery: Sendable, Hashable {
    /// Where to search from.
    public var center: Coordinate
    /// Only places within this many metres; nil for the k nearest anywhere.
    public var radius: Double?
    /// At most this many results.
    public var limit: Int
    /// Only these kinds (empty: all).
    public var types: Set<BusinessType>
    /// Minimum rating per dimension: a place qualifies when its rated value is at least this
    /// (a place without that rating does not match). For outlets, wifi and seating, where higher
    /// is better.
    public var minimums: [RatingDimension: Int]
    /// Maximum rating per dimension: a place qualifies when its rated value is at most this (a
    /// place without that rating does not match). For noise and cost, where lower is better: a
    /// quiet place is `[.noise: 2]`.
    public var maximums: [RatingDimension: Int]
    /// Only places open at `now` (unknown hours do not match).
    public var openNow: Bool
    /// The order.
    public var sort: PlaceSort
    /// The time "open now" is evaluated at.
    public var now: Date
    /// The user's time zone, for opening hours.
    public var timeZone: TimeZone

    /// Creates a query.
    public init(center: Coordinate, radius: Double? = 1500, limit: Int = 20, types: Set<BusinessType> = [], minimums: [RatingDimension: Int] = [:],
                maximums: [RatingDimension: Int] = [:], openNow: Bool = false, sort: PlaceSort = .distance, now: Date = Date(),
                timeZone: TimeZone = .current) {
        self.center = center; self.radius = radius; self.limit = limit; self.types = types; self.minimums = minimums; self.maximums = maximums
        self.openNow = openNow; self.sort = sort; self.now = now; self.timeZone = timeZone
    }
}

extension PlaceQuery {
    /// Whether a place with this rating meets the minimums and maximums (a dimension it lacks
    /// does not).
    func accepts(_ rating: Rating?) -> Bool {
        guard !minimums.isEmpty || !maximums.isEmpty else { return true }
        guard let values = rating?.values else { return false }
        return minimums.allSatisfy { dimension, minimum in values[dimension].map { $0 >= minimum } ?? false }
            && maximums.allSatisfy { dimension, maximum in values[dimension].map { $0 <= maximum } ?? false }
    }
}

extension PlaceStore {
    /// Places near a point: candidates from the R*Tree, then exact great-circle distances,
    /// filters, and the order asked for.
    ///
    /// - Throws: ``WorkplaceError/invalidQuery(_:)`` for a negative radius or a limit out of 1…10000.
    public func near(_ query: PlaceQuery) throws(WorkplaceError) -> [NearbyPlace] {
        try near(query, indexOnly: nil)
    }

    /// `indexOnly`: nil chooses; true reads candidates from the R*Tree alone (no type or hours
    /// filter); false joins the place table for every candidate. Both give the same answer.
    func near(_ query: PlaceQuery, indexOnly: Bool?) throws(WorkplaceError) -> [NearbyPlace] {
        if let radius = query.radius, !(radius.isFinite && radius >= 0) { throw .invalidQuery("the radius must be 0 or more metres") }
        guard (1...10_000).contains(query.limit) else { throw .invalidQuery("the limit must be 1 to 10000") }
        for (dimension, value) in Array(query.minimums) + Array(query.maximums) where !(0...5).contains(value) {
            throw .invalidRating(dimension: dimension.rawValue, value: String(value))
        }
        let fromIndex = indexOnly ?? (query.types.isEmpty && !query.openNow)
        precondition(!fromIndex || (query.types.isEmpty && !query.openNow), "the index holds no types or hours") // programmer error
        return try read { db in
            let ratings = try Self.ratingValues(db)
            let community = try Self.communityQualities(db)
            let prior = PlaceRanking.priorMean
            // Nearest first: look near first, and farther only while fewer than `limit` places
            // are found (those `limit` are then the nearest anywhere in the radius, and a
            // 50 km radius full of places costs what its first few hundred metres do). Best
            // score first: a far place may outrank a near one, so the whole radius is read.
            let outermost = query.radius ?? 20_100_000
            var radius = query.sort == .distance || query.radius == nil ? min(500, outermost) : outermost
            while true {
                let found = fromIndex ? try indexCandidates(query, radius: radius, prior: prior, ratings: ratings, community: community, db: db)
                    : try candidates(query, radius: radius, prior: prior, ratings: ratings, community: community, db: db)
                if found.count >= query.limit || radius >= outermost {
                    return found
                }
                radius = min(radius * 4, outermost)
            }
        }
    }

    /// A place inside the search box, with just what ranking and filtering need.
    struct Candidate {
        var id: Int64
        var distance: Double
        var smoothed: Double
        var score: Double
        var isOpen: Bool?
    }

    /// Two phases: light rows from the R*Tree (position, kind, rating; hours only when
    /// filtering on them) are filtered and ranked, then only the places kept are loaded whole.
    private func candidates(_ query: PlaceQuery, radius: Double, prior: Double, ratings: [Int64: Rating],
                            community: [Int64: CommunityRatingSummary], db: Database) throws -> [NearbyPlace] {
        var found: [Candidate] = []
        var seen: Set<Int64> = []
        let typeList = query.types.map { "'\($0.rawValue)'" }.sorted().joined(separator: ",")
        let typeFilter = query.types.isEmpty ? "" : " AND coalesce(r.type_override, p.type) IN (\(typeList))"
        let sigma = PlaceRanking.sigma(radius: query.radius ?? radius)
        let hoursColumn = query.openNow ? "p.opening_hours" : "NULL"
        var parsedHours: [String: Bool?] = [:]  // many places share one hours string: read each once
        for box in Geo.boxes(around: query.center, radius: radius) {
            let rows = try Row.fetchCursor(db, sql: """
                SELECT p.id, p.lat, p.lon, \(hoursColumn) AS hours
                FROM place_index i JOIN place p ON p.id = i.id LEFT JOIN rating r ON r.place_id = p.id
                WHERE i.max_lat >= ? AND i.min_lat <= ? AND i.max_lon >= ? AND i.min_lon <= ?\(typeFilter)
                """, arguments: [box.minLat, box.maxLat, box.minLon, box.maxLon])
            while let row = try rows.next() {
                let id: Int64 = row["id"]
                guard seen.insert(id).inserted else { continue }
                let distance = Geo.distance(query.center, Coordinate(unchecked: row["lat"], row["lon"]))
                guard distance <= radius else { continue }
                let rating = ratings[id]
                guard query.accepts(rating) else { continue }
                var open: Bool?
                if query.openNow {
                    if let text = row["hours"] as String? {
                        if let known = parsedHours[text] {
                            open = known
                        } else {
                            open = WeeklyHours.parseOSM(text).map { $0.isOpen(at: query.now, timeZone: query.timeZone) }
                            parsedHours[text] = open
                        }
                    }
                    guard open == true else { continue }
                }
                let smoothed = PlaceRanking.smoothedQuality(rating, community: community[id], prior: prior)
                found.append(Candidate(id: id, distance: distance, smoothed: smoothed, score: Self.score(smoothed, distance, sigma: sigma), isOpen: open))
            }
        }
        return try complete(found, query: query, db: db)
    }

    /// Candidates from the R*Tree alone: its nodes keep nearby places together, while the place
    /// rows of a neighbourhood are spread over the whole file. The index holds each position as
    /// a 32-bit float box around the true one, so every distance is known within the box's
    /// half-diagonal: the candidates that could be among the first `limit` (by that bound) get
    /// their exact positions read, and are then ranked exactly as ``candidates(_:radius:prior:db:)``
    /// would rank them.
    private func indexCandidates(_ query: PlaceQuery, radius: Double, prior: Double, ratings: [Int64: Rating],
                                 community: [Int64: CommunityRatingSummary], db: Database) throws -> [NearbyPlace] {
        struct Estimate {
            var id: Int64
            var nearest: Double   // the least the distance can be
            var farthest: Double  // the most it can be
            var smoothed: Double
        }
        let sigma = PlaceRanking.sigma(radius: query.radius ?? radius)
        func score(_ smoothed: Double, _ distance: Double) -> Double { Self.score(smoothed, distance, sigma: sigma) }
        var estimates: [Estimate] = []
        var seen: Set<Int64> = []
        let statement = try db.cachedStatement(sql: """
            SELECT id, min_lat, max_lat, min_lon, max_lon FROM place_index
            WHERE max_lat >= ? AND min_lat <= ? AND max_lon >= ? AND min_lon <= ?
            """)
        let boxes = Geo.boxes(around: query.center, radius: radius)
        // Metres per degree along a meridian: a great-circle arc is never longer than the
        // degrees it spans in latitude and longitude together.
        let metresPerDegree = Geo.earthRadius * .pi / 180
        for box in boxes {
            let rows = try Row.fetchCursor(statement, arguments: [box.minLat, box.maxLat, box.minLon, box.maxLon])
            while let row = try rows.next() {
                let id: Int64 = row[0]
                if boxes.count > 1 { guard seen.insert(id).inserted else { continue } }
                let minLat: Double = row[1], maxLat: Double = row[2], minLon: Double = row[3], maxLon: Double = row[4]
                let middle = Coordinate(unchecked: (minLat + maxLat) / 2, (minLon + maxLon) / 2)
                let distance = Geo.distance(query.center, middle)
                // The true position is in the box: at most its half-diagonal from the middle.
                let slack = metresPerDegree * ((maxLat - minLat) + (maxLon - minLon)) / 2 + 1e-6 + distance * 1e-12
                guard distance - slack <= radius else { continue }
                let rating = ratings[id]
                guard query.accepts(rating) else { continue }
                estimates.append(Estimate(id: id, nearest: max(0, distance - slack), farthest: distance + slack,
                                          smoothed: PlaceRanking.smoothedQuality(rating, community: community[id], prior: prior)))
            }
        }
        // Those surely inside the radius bound how good the `limit`-th answer is at worst.
        let sure = estimates.filter { $0.farthest <= radius }
        var kept = estimates
        if sure.count >= query.limit {
            switch query.sort {
            case .distance:
                let worst = sure.map(\.farthest).sorted()[query.limit - 1]
                kept = estimates.filter { $0.nearest <= worst }
            case .score:
                let worst = sure.map { score($0.smoothed, $0.farthest) }.sorted(by: >)[query.limit - 1]
                kept = estimates.filter { score($0.smoothed, $0.nearest) >= worst }
            }
        }
        guard !kept.isEmpty else { return [] }
        let smoothed = Dictionary(uniqueKeysWithValues: kept.map { ($0.id, $0.smoothed) })
        var exact: [Candidate] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT id, lat, lon FROM place WHERE id IN (\(kept.map { String($0.id) }.joined(separator: ",")))")
        while let row = try rows.next() {
            let id: Int64 = row[0]
            let distance = Geo.distance(query.center, Coordinate(unchecked: row[1], row[2]))
            guard distance <= radius, let quality = smoothed[id] else { continue }
            exact.append(Candidate(id: id, distance: distance, smoothed: quality, score: score(quality, distance), isOpen: nil))
        }
        return try complete(exact, query: query, db: db)
    }

    /// Orders the candidates, keeps the first `limit`, and loads those places whole.
    private func complete(_ candidates: [Candidate], query: PlaceQuery, db: Database) throws -> [NearbyPlace] {
        let ordered: [Candidate]
        switch query.sort {
        case .distance: ordered = candidates.sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
        case .score: ordered = candidates.sorted { ($1.score, $0.distance, $0.id) < ($0.score, $1.distance, $1.id) }
        }
        let kept = Array(ordered.prefix(query.limit))
        guard !kept.isEmpty else { return [] }
        let places = Dictionary(uniqueKeysWithValues: try Self.fetch(db, "WHERE p.id IN (\(kept.map { String($0.id) }.joined(separator: ",")))", [])
            .map { ($0.id.rawValue, $0) })
        return kept.compactMap { candidate in
            guard let place = places[candidate.id] else { return nil }
            let open = candidate.isOpen ?? place.openingHours.flatMap(WeeklyHours.parseOSM).map { $0.isOpen(at: query.now, timeZone: query.timeZone) }
            return NearbyPlace(place: place, distance: candidate.distance, smoothedQuality: candidate.smoothed, score: candidate.score, isOpen: open)
        }
    }

    static func score(_ smoothed: Double, _ distance: Double, sigma: Double) -> Double {
        PlaceRanking.score(quality: smoothed, distance: distance, sigma: sigma)
    }

    static func smoothedQuality(_ rating: Rating?, prior: Double) -> Double {
        PlaceRanking.smoothedQuality(rating, prior: prior)
    }

    /// Every rating's values, by place (the user rates few places).
    static func ratingValues(_ db: Database) throws -> [Int64: Rating] {
        var ratings: [Int64: Rating] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT place_id, noise, outlets, wifi, cost, seating FROM rating")
        while let row = try rows.next() {
            var values: [RatingDimension: Int] = [:]
            for dimension in RatingDimension.allCases {
                if let value = row[dimension.rawValue] as Int? { values[dimension] = value }
            }
            ratings[row["place_id"]] = Rating(values: values)
        }
        return ratings
    }
}
