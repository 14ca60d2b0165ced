import Foundation

/// Yelp Fusion: `/businesses/search` around a point (paged up to Yelp's 240 results), then
/// `/businesses/{id}` for the opening hours of the nearest ones.
public struct YelpProvider: PlaceProvider {
    /// The provider's name, for messages.
    public let name = "Yelp"
    /// The API key (sent as a Bearer token).
    public var apiKey: String
    /// `https://api.yelp.com/v3` in production.
    public var baseURL: URL
    /// Category aliases searched (a union).
    public var categories: [String]
    /// Details (hours) are fetched for at most this many businesses.
    public var hoursLimit: Int
    /// How long to wait for each answer.
    public var timeout: TimeInterval
    let client: any HTTPClient
    let retry: RetryPolicy

    /// The categories that make good work spots.
    public static let workCategories = ["coffee", "coffeeroasteries", "cafes", "internetcafe", "libraries", "sharedofficespaces"]

    /// Creates a provider.
    public init(apiKey: String, baseURL: URL = URL(string: "https://api.yelp.com/v3")!, categories: [String] = workCategories, // programmer error: a literal URL
                hoursLimit: Int = 20, timeout: TimeInterval = 15, maxRetries: Int = 3, initialBackoff: TimeInterval = 1,
                client: any HTTPClient) {
        self.apiKey = apiKey; self.baseURL = baseURL; self.categories = categories; self.hoursLimit = hoursLimit; self.timeout = timeout
        self.client = client
        retry = RetryPolicy(maxRetries: maxRetries, initialBackoff: initialBackoff, maxWait: 30)
    }

    public func places(near center: Coordinate, radius: Double, progress: FetchProgress?) async throws(WorkplaceError) -> [PlaceRecord] {
        guard !apiKey.trimmingCharacters(in: .whitespaces).isEmpty else { throw .missingAPIKey(provider: name) }
        // CR/LF in a header value would add headers of its own; no control character is sent.
        guard !apiKey.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidAPIKey(provider: name)
        }
        // Every message that can carry provider text passes here: an answer quoting the request
        // (Yelp's VALIDATION_ERROR does) must not print the key.
        do {
            return try await fetch(near: center, radius: radius, progress: progress)
        } catch {
            throw Self.redacting(apiKey, in: error)
        }
    }

    /// `error` with every occurrence of `key` (as sent, and percent-encoded) in its text replaced.
    static func redacting(_ key: String, in error: WorkplaceError) -> WorkplaceError {
        let forms = Set([key, key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key]).filter { !$0.isEmpty }
        func scrub(_ text: String) -> String {
            forms.reduce(text) { $0.replacingOccurrences(of: $1, with: "[API key]") }
        }
        switch error {
        case .providerUnauthorized(let provider, let detail): return .providerUnauthorized(provider: provider, detail: scrub(detail))
        case .providerUnavailable(let provider, let detail): return .providerUnavailable(provider: provider, detail: scrub(detail))
        case .invalidCoordinate(let detail): return .invalidCoordinate(scrub(detail))
        case .invalidQuery(let reason): return .invalidQuery(scrub(reason))
        default: return error
        }
    }

    /// The business at `address` (Yelp's search by location, with `name` as the search term when
    /// given), with its opening hours from its details.
    public func lookUp(address: String, name: String?) async throws(WorkplaceError) -> PlaceRecord {
        guard !apiKey.trimmingCharacters(in: .whitespaces).isEmpty else { throw .missingAPIKey(provider: self.name) }
        guard !apiKey.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidAPIKey(provider: self.name)
        }
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidText(InvalidText(field: .address, problem: .empty)) }
        do throws(WorkplaceError) {
            var components = URLComponents(url: baseURL.appendingPathComponent("businesses/search"), resolvingAgainstBaseURL: false)
            components?.queryItems = [URLQueryItem(name: "location", value: trimmed), URLQueryItem(name: "limit", value: "1")]
                + (name.map { [URLQueryItem(name: "term", value: $0)] } ?? [])
            let object = try await get(components?.url)
            guard let businesses = object["businesses"] as? [[String: Any]] else { throw garbage("no 'businesses' list in the search answer") }
            guard let business = businesses.first, var record = try Self.record(business) else { throw WorkplaceError.addressNotFound(trimmed) }
            if let id = record.providerID, !id.isEmpty {
                let detail = try await get(baseURL.appendingPathComponent("businesses").appendingPathComponent(id))
                record.openingHours = Self.hours(detail)?.osmString
            }
            if let name { record.name = name }
            return PlaceStore.keepingValidFields(record, fallbackName: name ?? trimmed)
        } catch {
            throw Self.redacting(apiKey, in: error)
        }
    }

    private func fetch(near center: Coordinate, radius: Double, progress: FetchProgress?) async throws(WorkplaceError) -> [PlaceRecord] {
        var records: [PlaceRecord] = []
        var ids: [String] = []
        var offset = 0
        var total = Int.max
        while offset < min(total, 240) {
            let limit = min(50, 240 - offset)
            var components = URLComponents(url: baseURL.appendingPathComponent("businesses/search"), resolvingAgainstBaseURL: false)
            components?.queryItems = [
                URLQueryItem(name: "latitude", value: String(center.latitude)),
                URLQueryItem(name: "longitude", value: String(center.longitude)),
                URLQueryItem(name: "radius", value: String(Int(radius.isNaN ? 40_000 : min(max(radius, 1), 40_000).rounded()))),
                URLQueryItem(name: "categories", value: categories.joined(separator: ",")),
                URLQueryItem(name: "limit", value: String(limit)),
                URLQueryItem(name: "offset", value: String(offset)),
                URLQueryItem(name: "sort_by", value: "distance"),
            ]
            progress?("Yelp: searching (\(records.count) so far)…")
            let object = try await get(components?.url)
            guard let businesses = object["businesses"] as? [[String: Any]] else { throw garbage("no 'businesses' list in the search answer") }
            total = object["total"] as? Int ?? businesses.count
            for business in businesses {
                guard let record = try Self.record(business) else { continue }
                records.append(record)
                ids.append(record.providerID ?? "")
            }
            if businesses.count < limit { break }
            offset += businesses.count
        }
        for (index, id) in ids.prefix(hoursLimit).enumerated() where !id.isEmpty {
            progress?("Yelp: opening hours \(index + 1)/\(min(ids.count, hoursLimit))…")
            let detail = try await get(baseURL.appendingPathComponent("businesses").appendingPathComponent(id))
            if let hours = Self.hours(detail) { records[index].openingHours = hours.osmString }
        }
        return records
    }

    private func get(_ url: URL?) async throws(WorkplaceError) -> [String: Any] {
        guard let url else { throw .providerUnavailable(provider: name, detail: "cannot build the request URL") }
        let request = HTTPRequest(url: url, headers: ["Authorization": "Bearer \(apiKey)", "Accept": "application/json"], timeout: timeout)
        let response = try await retry.send(request, with: client, provider: name)
        let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let status = response.status
        if (200...299).contains(status) {
            guard let object else { throw garbage("the answer is not a JSON object") }
            return object
        }
        let error = object?["error"] as? [String: Any]
        let code = error?["code"] as? String ?? "HTTP \(status)"
        let description = error?["description"] as? String
        let detail = description.map { "\(code): \($0)" } ?? code
        switch status {
        case 401: throw .providerUnauthorized(provider: name, detail: code)
        case 403 where code != "BUSINESS_UNAVAILABLE": throw .providerUnauthorized(provider: name, detail: code)
        case 429: throw .providerRateLimited(provider: name)
        default: throw .providerUnavailable(provider: name, detail: detail)
        }
    }

    private func garbage(_ detail: String) -> WorkplaceError { .providerUnavailable(provider: name, detail: detail) }

    /// A search result as a record; nil for a permanently closed business.
    static func record(_ business: [String: Any]) throws(WorkplaceError) -> PlaceRecord? {
        guard let id = business["id"] as? String, let name = business["name"] as? String,
              let coordinates = business["coordinates"] as? [String: Any],
              let latitude = (coordinates["latitude"] as? NSNumber)?.doubleValue, let longitude = (coordinates["longitude"] as? NSNumber)?.doubleValue else {
            throw .providerUnavailable(provider: "Yelp", detail: "a business without id, name or coordinates")
        }
        if business["is_closed"] as? Bool == true { return nil }
        let categoryAliases = (business["categories"] as? [[String: Any]] ?? []).compactMap { $0["alias"] as? String }
        let location = business["location"] as? [String: Any]
        let address = (location?["display_address"] as? [String])?.joined(separator: ", ")
        let phone = (business["display_phone"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let coordinate: Coordinate
        do { coordinate = try Coordinate(latitude: latitude, longitude: longitude) } catch {
            throw .providerUnavailable(provider: "Yelp", detail: "a business at impossible coordinates \(latitude),\(longitude)")
        }
        return PlaceRecord(name: name, type: type(for: categoryAliases), coordinate: coordinate, address: address, phone: phone,
                           website: business["url"] as? String, openingHours: nil, categories: categoryAliases, origin: .yelp, providerID: id)
    }

    static func type(for aliases: [String]) -> BusinessType {
        let set = Set(aliases)
        if !set.isDisjoint(with: ["sharedofficespaces", "coworkingspaces"]) { return .coworkingSpace }
        if set.contains("libraries") { return .library }
        if !set.isDisjoint(with: ["coffee", "coffeeroasteries", "cafes", "internetcafe", "bubbletea", "tea"]) { return .coffeeShop }
        if !set.isDisjoint(with: ["bars", "pubs", "wine_bars", "beerbar"]) { return .bar }
        if !set.isEmpty { return .restaurant }
        return .other
    }

    /// The REGULAR hours of a business detail.
    static func hours(_ detail: [String: Any]) -> WeeklyHours? {
        guard let hours = detail["hours"] as? [[String: Any]],
              let regular = hours.first(where: { ($0["hours_type"] as? String ?? "REGULAR") == "REGULAR" }),
              let open = regular["open"] as? [[String: Any]] else { return nil }
        let entries = open.compactMap { entry -> (Int, String, String, Bool)? in
            guard let day = entry["day"] as? Int, let start = entry["start"] as? String, let end = entry["end"] as? String else { return nil }
            return (day, start, end, entry["is_overnight"] as? Bool ?? false)
        }
        guard entries.count == open.count else { return nil }
        return WeeklyHours.yelp(entries.map { (day: $0.0, start: $0.1, end: $0.2, overnight: $0.3) })
    }
}
