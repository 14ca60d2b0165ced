import Foundation
import SuiteMarkup
import GRDB
import SuiteStorage

/// The parts of GeoJSON that places use.
struct GeoJSONDocument: Decodable {
    var type: String
    var features: [GeoJSONFeature]?
    var id: GeoJSONID?
    var geometry: GeoJSONGeometry?
    var properties: GeoJSONProperties?
}

struct GeoJSONFeature: Decodable {
    var type: String?
    var id: GeoJSONID?
    var geometry: GeoJSONGeometry?
    var properties: GeoJSONProperties?
}

/// A feature id: a string or a number.
struct GeoJSONID: Decodable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) { text = String(number) } else { text = try container.decode(String.self) }
    }
}

struct GeoJSONGeometry: Decodable {
    var type: String
    /// The position of a Point; nil for other geometries (whose coordinates nest deeper).
    var coordinates: [Double]?

    enum CodingKeys: String, CodingKey { case type, coordinates }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        coordinates = type == "Point" ? try container.decodeIfPresent([Double].self, forKey: .coordinates) : nil
    }
}

struct GeoJSONProperties: Decodable {
    var name: String?
    var type: String?
    /// OpenStreetMap's tags, as exported by Overpass turbo, osmtogeojson or QGIS.
    var amenity: String?
    var office: String?
    var origin: String?
    var provider_id: String?
    var address: String?
    var phone: String?
    var website: String?
    var opening_hours: String?
    var categories: [String]?
    var saved: Bool?
    var rating: GeoJSONRating?
}

struct GeoJSONRating: Decodable {
    var noise: Double?, outlets: Double?, wifi: Double?, cost: Double?, seating: Double?
    var wifi_mbps: Double?
    var menu: String?
    var notes: String?
    var pin_color: String?
}

/// GeoJSON (RFC 7946) and CSV for places.
public enum PlaceFiles {
    /// A FeatureCollection of Point features; properties carry the provider data, the user's
    /// rating and the pin. One feature per line, keys sorted.
    public static func geoJSON(_ places: [Place]) -> Data {
        var data = geoJSONStart
        for (index, place) in places.enumerated() { data += geoJSONFeature(place, first: index == 0) }
        return data + geoJSONEnd
    }

    /// The start of a GeoJSON export written feature by feature: ``geoJSONStart``, then
    /// ``geoJSONFeature(_:first:)`` for each place, then ``geoJSONEnd``.
    public static let geoJSONStart = Data("{\"features\":[".utf8)

    /// The end of a GeoJSON export written feature by feature.
    public static let geoJSONEnd = Data("\n],\"type\":\"FeatureCollection\"}\n".utf8)

    /// One feature of a GeoJSON export, on a line of its own (`first`: no comma before it).
    public static func geoJSONFeature(_ place: Place, first: Bool) -> Data {
        var rating: String?
        if let given = place.rating {
            var members: [(String, String?)] = [
                ("notes", JSONText.string(given.notes)), ("updated_at", JSONText.string(ISOTime.string(given.updatedAt))),
                ("wifi_mbps", given.wifiMbps.map(JSONText.number)), ("menu", given.menu.map { JSONText.string($0.rawValue) }),
                ("pin_color", given.pinColor.map { JSONText.string($0.rawValue) }),
            ]
            for (dimension, value) in given.values { members.append((dimension.rawValue, String(value))) }
            rating = JSONText.object(members)
        }
        let properties = JSONText.object([
            ("name", JSONText.string(place.name)), ("type", JSONText.string(place.type.rawValue)), ("origin", JSONText.string(place.origin.rawValue)),
            ("categories", JSONText.array(place.categories)), ("pin", JSONText.string(place.pinState.rawValue)),
            ("pin_color", JSONText.string(place.pinColor.rawValue)), ("saved", place.isSaved ? "true" : "false"),
            ("provider_id", place.providerID.map(JSONText.string)), ("address", place.address.map(JSONText.string)),
            ("phone", place.phone.map(JSONText.string)), ("website", place.website.map(JSONText.string)),
            ("opening_hours", place.openingHours.map(JSONText.string)), ("fetched_at", place.fetchedAt.map { JSONText.string(ISOTime.string($0)) }),
            ("rating", rating),
        ])
        let geometry = "{\"coordinates\":[\(JSONText.number(place.coordinate.longitude)),\(JSONText.number(place.coordinate.latitude))],\"type\":\"Point\"}"
        let feature = "{\"geometry\":\(geometry),\"id\":\(place.id.rawValue),\"properties\":\(properties),\"type\":\"Feature\"}"
        return Data(((first ? "\n" : ",\n") + feature).utf8)
    }

    /// A place read from a file, with the user's rating when the file carries one.
    public struct ImportedPlace: Sendable, Hashable {
        /// The provider data.
        public var record: PlaceRecord
        /// The rating the file carries, if any.
        public var rating: RatingChange?
        /// True when the file marks the place as saved.
        public var saved: Bool
        /// What the file said that could not be used as given (an unknown place type), naming
        /// the feature.
        public var warnings: [String] = []
    }

    /// The kind of place a GeoJSON feature describes: its `type` property (Suite's own names or a
    /// common synonym such as `cafe`, `café`, `coffee`, `coworking_space`), else OpenStreetMap's
    /// `amenity` tag (`cafe`, `library`, `coworking_space`, `bar`, `pub`, `restaurant`, …), else
    /// `office=coworking`.
    ///
    /// - Returns: the kind, and the value that was not understood when there was one (the kind is
    ///   then `other`).
    static func businessType(_ properties: GeoJSONProperties) -> (type: BusinessType, unknown: String?) {
        var given: [String] = []
        for (key, value) in [("type", properties.type), ("amenity", properties.amenity), ("office", properties.office)] {
            guard let value, !value.isBlank else { continue }
            if let type = BusinessType(synonym: value), key != "office" || type == .coworkingSpace { return (type, nil) }
            given.append("\(key) '\(value)'")
        }
        if let first = given.first { return (.other, first) }
        return (.other, nil)
    }

    /// Reads a GeoJSON FeatureCollection (or a single Feature). Decoded into typed values
    /// (no dictionary per feature), so a million features fit in a few hundred megabytes.
    ///
    /// - Throws: ``WorkplaceError/malformedImport(file:reason:)`` saying which feature broke and why.
    public static func parseGeoJSON(_ data: Data, file: String) throws(WorkplaceError) -> [ImportedPlace] {
        func fail(_ reason: String) -> WorkplaceError { .malformedImport(file: file, reason: reason) }
        guard String(validating: data, as: UTF8.self) != nil else { throw fail("not valid UTF-8") }
        let document: GeoJSONDocument
        do {
            document = try JSONDecoder().decode(GeoJSONDocument.self, from: data)
        } catch let error as DecodingError {
            throw fail(describe(error))
        } catch {
            throw fail("not a JSON object")
        }
        let features: [GeoJSONFeature]
        switch document.type {
        case "FeatureCollection":
            guard let list = document.features else { throw fail("a FeatureCollection without a 'features' list") }
            features = list
        case "Feature":
            features = [GeoJSONFeature(type: "Feature", id: document.id, geometry: document.geometry, properties: document.properties)]
        default:
            throw fail("not GeoJSON: 'type' must be FeatureCollection or Feature")
        }
        var places: [ImportedPlace] = []
        places.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            places.append(try importedPlace(feature, index: index, file: file))
        }
        return places
    }

    /// One feature as a place to import (`index` counts from 0, for messages).
    static func importedPlace(_ feature: GeoJSONFeature, index: Int, file: String) throws(WorkplaceError) -> ImportedPlace {
        func fail(_ reason: String) -> WorkplaceError { .malformedImport(file: file, reason: reason) }
        func bad(_ reason: String) -> WorkplaceError { fail("feature \(index + 1): \(reason)") }
        guard feature.type == "Feature" else { throw bad("not a Feature") }
        guard let geometry = feature.geometry else { throw bad("no geometry") }
        guard geometry.type == "Point" else { throw bad("geometry is not a Point") }
        guard let coordinates = geometry.coordinates, (2...3).contains(coordinates.count) else {
            throw bad("coordinates must be [longitude, latitude]")
        }
        let longitude = coordinates[0], latitude = coordinates[1]
        let coordinate: Coordinate
        do { coordinate = try Coordinate(latitude: latitude, longitude: longitude) } catch {
            throw bad("coordinates [\(longitude), \(latitude)] are out of range (GeoJSON puts longitude first)")
        }
        let properties = feature.properties ?? GeoJSONProperties()
        guard let name = properties.name, !name.isBlank else { throw bad("no name") }
        var origin = properties.origin.flatMap(PlaceOrigin.init(rawValue:)) ?? .imported
        var providerID = properties.provider_id
        if providerID == nil {
            // No provider id: one derived from the feature's id, or its name and position,
            // so that importing the same file again updates instead of duplicating.
            origin = .imported
            providerID = "geojson:" + (feature.id?.text ?? "\(name)@\(latitude),\(longitude)")
        }
        let (type, unknown) = businessType(properties)
        let record = PlaceRecord(
            name: name, type: type, coordinate: coordinate,
            address: properties.address, phone: properties.phone, website: properties.website, openingHours: properties.opening_hours,
            categories: properties.categories ?? [], origin: origin, providerID: providerID)
        var change: RatingChange?
        if let rating = properties.rating {
            var values: [RatingDimension: Int] = [:]
            for (dimension, raw) in [(RatingDimension.noise, rating.noise), (.outlets, rating.outlets), (.wifi, rating.wifi),
                                     (.cost, rating.cost), (.seating, rating.seating)] {
                guard let raw else { continue }
                guard raw == raw.rounded(), (0...5).contains(raw) else {
                    throw bad("rating \(dimension.rawValue) '\(raw)' is not a whole number from 0 to 5")
                }
                values[dimension] = Int(raw)
            }
            // A value the file names but Suite does not know is refused, not dropped.
            var menu: MenuOption?
            if let raw = rating.menu {
                guard let known = MenuOption(rawValue: raw) else {
                    throw bad("menu '\(raw.prefix(40))' is not one of \(MenuOption.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                menu = known
            }
            var pin: PinColor?
            if let raw = rating.pin_color {
                guard let known = PinColor(rawValue: raw) else {
                    throw bad("pin_color '\(raw.prefix(40))' is not one of \(PinColor.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                pin = known
            }
            change = RatingChange(values: values, wifiMbps: rating.wifi_mbps, menu: menu, notes: rating.notes, pinColor: pin)
        }
        var imported = ImportedPlace(record: record, rating: change, saved: properties.saved ?? false)
        if let unknown {
            imported.warnings.append("feature \(index + 1) '\(name)': unknown \(unknown), stored as other")
        }
        return imported
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            var feature: Int?
            var rest: [String] = []
            for (position, key) in context.codingPath.enumerated() {
                if position > 0, context.codingPath[position - 1].stringValue == "features", let index = key.intValue {
                    feature = index + 1
                    rest = []
                } else if key.stringValue != "features" {
                    rest.append(key.intValue.map { "[\($0)]" } ?? key.stringValue)
                }
            }
            let field = rest.joined(separator: " ")
            return (feature.map { "feature \($0)" } ?? "the document") + (field.isEmpty ? "" : ": \(field)")
        }
        switch error {
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            return "not a JSON object"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)) has the wrong type"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing '\(key.stringValue)'"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not a JSON object" : "\(path(context)) is invalid"
        @unknown default:
            return "not GeoJSON"
        }
    }

    /// CSV (RFC 4180) with a header row. Numbers are written as numbers; a text field that a
    /// spreadsheet would run as a formula (first character `=`, `+`, `-`, `@`, tab or CR, also
    /// after leading spaces) is prefixed with `'`, the usual guard.
    public static func csv(_ places: [Place]) -> String {
        csvHeader + places.map(csvLine).joined()
    }

    /// The header row of a CSV export written place by place (then ``csvLine(_:)`` for each).
    public static let csvHeader = ["id", "name", "type", "latitude", "longitude", "address", "phone", "website", "opening_hours", "origin",
                                   "provider_id", "pin", "pin_color", "noise", "outlets", "wifi", "cost", "seating", "wifi_mbps", "menu",
                                   "notes"].joined(separator: ",") + "\n"

    /// One place's CSV row, with its line break.
    public static func csvLine(_ place: Place) -> String {
        let rating = place.rating
        var fields: [String] = [String(place.id)]
        fields += [place.name, place.type.rawValue].map(text)
        fields += [String(place.coordinate.latitude), String(place.coordinate.longitude)]
        fields += [place.address, place.phone, place.website, place.openingHours, place.origin.rawValue, place.providerID,
                   place.pinState.rawValue, place.pinColor.rawValue].map { text($0 ?? "") }
        fields += RatingDimension.allCases.map { rating?.values[$0].map(String.init) ?? "" }
        fields.append(rating?.wifiMbps.map { String($0) } ?? "")
        fields += [rating?.menu?.rawValue ?? "", rating?.notes ?? ""].map(text)
        return fields.joined(separator: ",") + "\n"
    }

    /// A text field: formula guard, then RFC 4180 quoting when it holds a comma, a quote or a
    /// line break.
    static func text(_ field: String) -> String {
        let field = Markup.plain(field)
        let risky: Bool = {
            guard let first = field.unicodeScalars.first else { return false }
            if "=+-@\t\r".unicodeScalars.contains(first) { return true }
            guard first == " " else { return false }
            return field.unicodeScalars.first { $0 != " " }.map { "=+-@\t\r".unicodeScalars.contains($0) } ?? false
        }()
        let guarded = risky ? "'" + field : field
        guard guarded.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return guarded }
        return "\"" + guarded.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension PlaceStore {
    /// Imports GeoJSON or an Overpass JSON answer: all of it or, when anything is malformed,
    /// none. Places are matched by origin and provider id, so importing again updates; ratings
    /// in the file are applied.
    @discardableResult
    public func importFile(_ data: Data, name: String) throws(WorkplaceError) -> PlaceImportSummary {
        if Self.isOverpass(head: data.prefix(65_536)) { return try importOverpass(data, name: name) }
        return try importGeoJSON(JSONArrayStream(data: data, arrayKeys: ["features"]), name: name) { data }
    }

    /// Imports a GeoJSON file (or an Overpass JSON answer) from disk: GeoJSON is read feature by
    /// feature into the one transaction, so a file of any size is imported in little memory; all
    /// of it or, when anything is malformed, none.
    @discardableResult
    public func importFile(at url: URL, name: String) throws(WorkplaceError) -> PlaceImportSummary {
        func whole() throws(WorkplaceError) -> Data {
            switch FileContents.read(path: url.path) {
            case .data(let bytes): return bytes
            case .tooLarge(let limit): throw .malformedImport(file: name, reason: "larger than \(limit >> 20) MiB")
            case .unreadable: throw .malformedImport(file: name, reason: "cannot be read")
            }
        }
        let head = (FileHandle(forReadingAtPath: url.path).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 65_536)
        }) ?? Data()
        if Self.isOverpass(head: head) { return try importOverpass(try whole(), name: name) }
        let stream: JSONArrayStream
        do {
            stream = try JSONArrayStream(path: url.path, arrayKeys: ["features"])
        } catch {
            throw .malformedImport(file: name, reason: "cannot be read")
        }
        return try importGeoJSON(stream, name: name, whole: whole)
    }

    /// An Overpass answer names its "elements" near the start; GeoJSON has "features".
    static func isOverpass(head: Data) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("\"elements\"") && !text.contains("\"features\"")
    }

    private func importOverpass(_ data: Data, name: String) throws(WorkplaceError) -> PlaceImportSummary {
        let places: [PlaceFiles.ImportedPlace]
        do {
            places = try OverpassProvider.parse(data).map { PlaceFiles.ImportedPlace(record: $0, rating: nil, saved: false) }
        } catch {
            if case .malformedImport(_, let reason) = error { throw .malformedImport(file: name, reason: reason) }
            throw error
        }
        return try importPlaces(places.makeIterator(), name: name) { () throws(WorkplaceError) -> Void in }
    }

    /// GeoJSON read feature by feature. A document that is one Feature (no "features" list) is
    /// small: it is read whole (`whole`).
    private func importGeoJSON(_ stream: JSONArrayStream, name: String, whole: () throws(WorkplaceError) -> Data) throws(WorkplaceError) -> PlaceImportSummary {
        var stream = stream
        func problem(_ problem: JSONArrayStream.Problem) -> WorkplaceError {
            switch problem {
            case .invalidJSON: return .malformedImport(file: name, reason: "not a JSON object")
            case .notUTF8: return .malformedImport(file: name, reason: "not valid UTF-8")
            case .noArray: return .malformedImport(file: name, reason: "a FeatureCollection without a 'features' list")
            case .unreadable(let reason): return .malformedImport(file: name, reason: reason.isEmpty ? "cannot be read" : "cannot be read: \(reason)")
            }
        }
        let first: Data?
        do {
            first = try stream.next()
        } catch .noArray {
            let places = try PlaceFiles.parseGeoJSON(try whole(), file: name)
            return try importPlaces(places.makeIterator(), name: name) { () throws(WorkplaceError) -> Void in }
        } catch {
            throw problem(error)
        }
        // GeoJSON is an object; a bare array is not.
        guard stream.arrayKey != nil else { throw .malformedImport(file: name, reason: "not a JSON object") }
        let decoder = JSONDecoder()
        var index = 0
        var pending = first
        var failure: WorkplaceError?
        // Each feature is read, decoded and turned into a place only when the import asks for it;
        // a problem stops the walk and is thrown, inside the transaction, by `finish`.
        let places = AnyIterator<PlaceFiles.ImportedPlace> {
            guard failure == nil else { return nil }
            do {
                let element: Data?
                if let waiting = pending {
                    element = waiting
                    pending = nil
                } else {
                    element = try stream.next()
                }
                guard let element else { return nil }
                defer { index += 1 }
                let feature: GeoJSONFeature
                do {
                    feature = try decoder.decode(GeoJSONFeature.self, from: element)
                } catch let error as DecodingError {
                    let described = PlaceFiles.describe(error)
                    let reason = described.hasPrefix("not a JSON object") ? "not an object"
                        : described.replacingOccurrences(of: "the document: ", with: "").replacingOccurrences(of: "the document", with: "it")
                    failure = .malformedImport(file: name, reason: "feature \(index + 1): \(reason)")
                    return nil
                }
                return try PlaceFiles.importedPlace(feature, index: index, file: name)
            } catch let error as JSONArrayStream.Problem {
                failure = problem(error)
            } catch let error as WorkplaceError {
                failure = error
            } catch {
                failure = .malformedImport(file: name, reason: "\(error)")
            }
            return nil
        }
        return try importPlaces(places, name: name) { () throws(WorkplaceError) -> Void in
            if let failure { throw failure }
            // The document says what it is: only a FeatureCollection has a features list.
            let type = stream.members["type"].flatMap { try? JSONSerialization.jsonObject(with: $0, options: .fragmentsAllowed) as? String }
            guard type == "FeatureCollection" else {
                throw .malformedImport(file: name, reason: "not GeoJSON: 'type' must be FeatureCollection or Feature")
            }
        }
    }

    /// Stores places as they come, in one transaction: each checked (the same rules as every
    /// place), two for one provider id refused, ratings applied. `finish` runs last, inside the
    /// transaction (a problem found at the end of the file undoes everything).
    private func importPlaces<Places: IteratorProtocol<PlaceFiles.ImportedPlace>>(
        _ places: Places, name: String, finish: () throws(WorkplaceError) -> Void
    ) throws(WorkplaceError) -> PlaceImportSummary {
        var places = places
        let moment = stamp
        return try store.bulkWrite(scratch: true) { db in
            // Two features for one place would silently become one (the second an update of the
            // first): the file contradicts itself, so nothing is imported. The keys seen are kept
            // in the scratch database, on disk: memory does not grow with the file.
            try db.execute(sql: "CREATE TABLE scratch.import_seen (key TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL) WITHOUT ROWID")
            let remember = try db.makeStatement(sql: "INSERT OR IGNORE INTO scratch.import_seen (key, position, name) VALUES (?, ?, ?)")
            var summary = PlaceImportSummary(added: 0, updated: 0, warnings: [])
            var warnings = 0
            var index = 0
            while let place = places.next() {
                defer { index += 1 }
                if let providerID = place.record.providerID {
                    // The origin never holds '|': the key names one origin and provider id.
                    let key = place.record.origin.rawValue + "|" + providerID
                    try remember.execute(arguments: [key, index, place.record.name])
                    if db.changesCount == 0, let row = try Row.fetchOne(db, sql: "SELECT position, name FROM scratch.import_seen WHERE key = ?", arguments: [key]) {
                        let position: Int = row[0]
                        let earlier: String = row[1]
                        throw WorkplaceError.malformedImport(file: name, reason: "features \(position + 1) '\(earlier)' and \(index + 1) '\(place.record.name)' "
                                                             + "have the same provider id '\(providerID)'")
                    }
                }
                var item = place
                do {
                    item.record = try Self.validated(place.record)
                    if var change = place.rating {
                        if let notes = change.notes { change.notes = try Self.validated(notes: notes) }
                        try Rating(values: change.values, wifiMbps: change.wifiMbps, notes: change.notes ?? "").validate()
                        item.rating = change
                    }
                } catch let error as WorkplaceError {
                    throw WorkplaceError.malformedImport(file: name, reason: "feature \(index + 1): \(error.description)")
                }
                for warning in item.warnings {
                    warnings += 1
                    if warnings <= 100 { summary.warnings.append(warning) }
                }
                let (id, isNew, placeChanged) = try Self.upsert(item.record, db: db, stamp: moment, fetched: false)
                var changed = placeChanged
                if item.saved {
                    try db.execute(sql: "UPDATE place SET saved = 1 WHERE id = ? AND saved = 0", arguments: [id])
                    changed = changed || db.changesCount > 0
                }
                if let change = item.rating {
                    let values = change.values
                    // Written only when a value differs: the same rating again is no change (and
                    // no field of it is stamped for sync), and what the file does not carry (a
                    // type chosen by hand) stays.
                    try db.cachedStatement(sql: """
                        INSERT INTO rating (place_id, noise, outlets, wifi, cost, seating, wifi_mbps, menu, notes, pin_color, updated_ms)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (place_id) DO UPDATE SET noise = excluded.noise, outlets = excluded.outlets, wifi = excluded.wifi,
                            cost = excluded.cost, seating = excluded.seating, wifi_mbps = excluded.wifi_mbps, menu = excluded.menu,
                            notes = excluded.notes, pin_color = excluded.pin_color, updated_ms = excluded.updated_ms
                        WHERE noise IS NOT excluded.noise OR outlets IS NOT excluded.outlets OR wifi IS NOT excluded.wifi
                            OR cost IS NOT excluded.cost OR seating IS NOT excluded.seating OR wifi_mbps IS NOT excluded.wifi_mbps
                            OR menu IS NOT excluded.menu OR notes IS NOT excluded.notes OR pin_color IS NOT excluded.pin_color
                        """).execute(arguments: [id, values[.noise], values[.outlets], values[.wifi], values[.cost], values[.seating], change.wifiMbps,
                                                 change.menu?.rawValue, change.notes ?? "", change.pinColor?.rawValue, moment])
                    changed = changed || db.changesCount > 0
                }
                if isNew { summary.added += 1 } else if changed { summary.updated += 1 } else { summary.unchanged += 1 }
            }
            try finish()
            if warnings > 100 { summary.warnings.append("and \(warnings - 100) more like these") }
            return summary
        }
    }
}
