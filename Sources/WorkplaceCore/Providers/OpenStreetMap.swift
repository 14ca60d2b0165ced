import Foundation

/// OpenStreetMap through Overpass: cafés, libraries and coworking spaces around a point. Free,
/// no key; the data is © OpenStreetMap contributors (ODbL).
public struct OverpassProvider: PlaceProvider {
    /// The provider's name, for messages.
    public let name = "OpenStreetMap (Overpass)"
    /// `https://overpass-api.de/api` in production; the query goes to `interpreter` below it.
    public var baseURL: URL
    /// Sent as the User-Agent, naming the application.
    public var userAgent: String
    /// How long to wait for the answer.
    public var timeout: TimeInterval
    let client: any HTTPClient
    let retry: RetryPolicy

    /// Creates a provider.
    public init(baseURL: URL = URL(string: "https://overpass-api.de/api")!, userAgent: String, timeout: TimeInterval = 30, // programmer error: a literal URL
                maxRetries: Int = 2, initialBackoff: TimeInterval = 2, client: any HTTPClient) {
        self.baseURL = baseURL; self.userAgent = userAgent; self.timeout = timeout; self.client = client
        retry = RetryPolicy(maxRetries: maxRetries, initialBackoff: initialBackoff, maxWait: 30)
    }

    /// The Overpass QL query for work spots within `radius` metres.
    public static func query(center: Coordinate, radius: Double) -> String {
        let around = "around:\(Int(radius.isFinite ? min(max(radius, 0), 20_100_000).rounded() : 20_100_000)),\(center.latitude),\(center.longitude)"
        return "[out:json][timeout:25];(nwr[amenity~\"^(cafe|library|coworking_space)$\"](\(around));nwr[office=coworking](\(around)););out center tags;"
    }

    public func places(near center: Coordinate, radius: Double, progress: FetchProgress?) async throws(WorkplaceError) -> [PlaceRecord] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = "data=" + (Self.query(center: center, radius: radius).addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        let request = HTTPRequest(url: baseURL.appendingPathComponent("interpreter"), method: "POST",
                                  headers: ["User-Agent": userAgent, "Content-Type": "application/x-www-form-urlencoded"],
                                  body: Data(body.utf8), timeout: timeout)
        progress?("OpenStreetMap: asking Overpass…")
        let response = try await retry.send(request, with: client, provider: name)
        switch response.status {
        case 200...299: break
        case 429: throw .providerRateLimited(provider: name)
        default: throw .providerUnavailable(provider: name, detail: "HTTP \(response.status)")
        }
        do {
            return try Self.parse(response.body)
        } catch {
            throw .providerUnavailable(provider: name, detail: "unreadable answer (\(error.description))")
        }
    }

    /// Reads an Overpass JSON answer (also used to import a saved one).
    public static func parse(_ data: Data) throws(WorkplaceError) -> [PlaceRecord] {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let elements = object["elements"] as? [[String: Any]] else {
            throw .malformedImport(file: "Overpass JSON", reason: "not an Overpass answer (no 'elements' list)")
        }
        var records: [PlaceRecord] = []
        for (index, element) in elements.enumerated() {
            guard let type = element["type"] as? String, let id = element["id"] as? Int else {
                throw .malformedImport(file: "Overpass JSON", reason: "element \(index + 1) has no type or id")
            }
            let tags = element["tags"] as? [String: String] ?? [:]
            guard let name = tags["name"], !name.isBlank else { continue }
            let center = element["center"] as? [String: Any]
            guard let latitude = ((element["lat"] ?? center?["lat"]) as? NSNumber)?.doubleValue,
                  let longitude = ((element["lon"] ?? center?["lon"]) as? NSNumber)?.doubleValue else {
                throw .malformedImport(file: "Overpass JSON", reason: "element \(type)/\(id) has no coordinates")
            }
            let coordinate: Coordinate
            do { coordinate = try Coordinate(latitude: latitude, longitude: longitude) } catch {
                throw .malformedImport(file: "Overpass JSON", reason: "element \(type)/\(id): \(error.description)")
            }
            let street = [tags["addr:street"], tags["addr:housenumber"]].compactMap { $0 }.joined(separator: " ")
            let city = [tags["addr:postcode"], tags["addr:city"]].compactMap { $0 }.joined(separator: " ")
            let address = [street, city].filter { !$0.isEmpty }.joined(separator: ", ")
            var categories: [String] = []
            for key in ["amenity", "office", "internet_access", "outdoor_seating", "wheelchair"] {
                if let value = tags[key] { categories.append("\(key)=\(value)") }
            }
            records.append(PlaceRecord(
                name: name, type: businessType(tags), coordinate: coordinate, address: address.isEmpty ? nil : address,
                phone: tags["phone"] ?? tags["contact:phone"], website: tags["website"] ?? tags["contact:website"],
                openingHours: tags["opening_hours"], categories: categories, origin: .openStreetMap, providerID: "\(type)/\(id)"))
        }
        return records
    }

    static func businessType(_ tags: [String: String]) -> BusinessType {
        switch tags["amenity"] {
        case "cafe": return .coffeeShop
        case "library": return .library
        case "coworking_space": return .coworkingSpace
        case "bar", "pub": return .bar
        case "restaurant", "fast_food": return .restaurant
        default: return tags["office"] == "coworking" ? .coworkingSpace : .other
        }
    }
}

/// Nominatim geocoding, at most one request per second (retries included, however many callers
/// geocode at once), with a User-Agent naming the app.
public actor NominatimGeocoder: Geocoder {
    /// `https://nominatim.openstreetmap.org` in production.
    public let baseURL: URL
    /// Sent as the User-Agent, naming the application.
    public let userAgent: String
    let timeout: TimeInterval
    let client: any HTTPClient
    let retry: RetryPolicy
    /// Every request to the service, from every caller, takes a slot here.
    let pacer = RequestPacer(interval: .seconds(1))

    /// Creates a geocoder.
    public init(baseURL: URL = URL(string: "https://nominatim.openstreetmap.org")!, userAgent: String, timeout: TimeInterval = 15, // programmer error: a literal URL
                client: any HTTPClient) {
        self.baseURL = baseURL; self.userAgent = userAgent; self.timeout = timeout; self.client = client
        retry = RetryPolicy(maxRetries: 2, initialBackoff: 1, maxWait: 10)
    }

    public func geocode(_ address: String) async throws(WorkplaceError) -> (coordinate: Coordinate, displayName: String) {
        let (first, coordinate, trimmed) = try await search(address, details: false)
        return (coordinate, first["display_name"] as? String ?? trimmed)
    }

    /// The best match for `address` as a place: its name, coordinates, kind, and the opening
    /// hours, phone and website OpenStreetMap has for it (Nominatim's `extratags`). `name`, when
    /// given, is kept instead of OpenStreetMap's.
    public func lookUp(address: String, name: String?) async throws(WorkplaceError) -> PlaceRecord {
        let (first, coordinate, trimmed) = try await search(address, details: true)
        let extra = first["extratags"] as? [String: Any] ?? [:]
        func tag(_ key: String) -> String? { (extra[key] as? String).flatMap { $0.isBlank ? nil : $0 } }
        let display = first["display_name"] as? String
        let found = (first["name"] as? String).flatMap { $0.isBlank ? nil : $0 }
            ?? display?.split(separator: ",").first.map { String($0).trimmingCharacters(in: .whitespaces) }
        var tags: [String: String] = [:]
        if let category = first["category"] as? String, let type = first["type"] as? String { tags[category] = type }
        if let office = tag("office") { tags["office"] = office }
        var providerID: String?
        if let kind = first["osm_type"] as? String, ["node", "way", "relation"].contains(kind), let id = (first["osm_id"] as? NSNumber)?.int64Value {
            providerID = "\(kind)/\(id)"
        }
        let record = PlaceRecord(name: name ?? found ?? trimmed, type: OverpassProvider.businessType(tags), coordinate: coordinate,
                                 address: display ?? trimmed, phone: tag("phone") ?? tag("contact:phone"),
                                 website: tag("website") ?? tag("contact:website"), openingHours: tag("opening_hours"),
                                 categories: tags.map { "\($0.key)=\($0.value)" }.sorted(), origin: .openStreetMap, providerID: providerID)
        return PlaceStore.keepingValidFields(record, fallbackName: name ?? trimmed)
    }

    /// The first search result for `address` with its coordinates (and the trimmed address).
    private func search(_ address: String, details: Bool) async throws(WorkplaceError) -> (result: [String: Any], coordinate: Coordinate, address: String) {
        let name = "OpenStreetMap (Nominatim)"
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidText(InvalidText(field: .address, problem: .empty)) }
        var components = URLComponents(url: baseURL.appendingPathComponent("search"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "q", value: trimmed), URLQueryItem(name: "format", value: "jsonv2"),
                                  URLQueryItem(name: "limit", value: "1")]
            + (details ? [URLQueryItem(name: "extratags", value: "1")] : [])
        guard let url = components?.url else { throw .providerUnavailable(provider: name, detail: "the address cannot be sent") }
        let request = HTTPRequest(url: url, headers: ["User-Agent": userAgent], timeout: timeout)
        let response = try await retry.send(request, with: client, provider: name, pacer: pacer)
        switch response.status {
        case 200...299: break
        case 429: throw .providerRateLimited(provider: name)
        default: throw .providerUnavailable(provider: name, detail: "HTTP \(response.status)")
        }
        guard let results = (try? JSONSerialization.jsonObject(with: response.body)) as? [[String: Any]] else {
            throw .providerUnavailable(provider: name, detail: "the answer is not a list of places")
        }
        guard let first = results.first else { throw .addressNotFound(trimmed) }
        guard let lat = (first["lat"] as? String).flatMap(Double.init), let lon = (first["lon"] as? String).flatMap(Double.init) else {
            throw .providerUnavailable(provider: name, detail: "a result without lat/lon")
        }
        let coordinate: Coordinate
        do { coordinate = try Coordinate(latitude: lat, longitude: lon) } catch {
            throw .providerUnavailable(provider: name, detail: "a result at impossible coordinates")
        }
        return (first, coordinate, trimmed)
    }
}
