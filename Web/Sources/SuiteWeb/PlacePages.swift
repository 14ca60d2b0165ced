import Foundation
import HTTPTypes
import Hummingbird
import SuiteEnvironment
import WorkplaceCore
import WorkplaceURLSession

/// The place pages (seed 001): a map around your location with your pins (red for places not
/// rated yet, blue for yours, or the colour you chose) — the SVG the core draws, so it shows
/// without internet — a list beside it, filters, a rating page with proper controls, and adding
/// a place by its coordinates.
struct PlacePages {
    let app: WebApp

    var store: PlaceStore { app.places }

    func register(on router: Router<WebContext>) {
        router.get("/places") { request, _ in try await map(WebForm.query(request)) }
        router.post("/places/location") { _, context in try await setLocation(context.form) }
        router.get("/places/add") { _, _ in try await addForm() }
        router.post("/places/add") { _, context in try await add(context.form) }
        router.get("/places/place/{id}") { request, context in
            try await placePage(try placeID(context), saved: WebForm.query(request).first("saved") != nil)
        }
        router.post("/places/place/{id}/rate") { _, context in try await rate(try placeID(context), context.form) }
        registerFetching(on: router)
    }

    private func menu(_ current: String) -> [WebPage.MenuItem] {
        [("Map", "/places"), ("Add a place", "/places/add")].map { WebPage.MenuItem(label: $0.0, href: $0.1, current: $0.1 == current) }
    }

    private func page(_ template: String, title: String, current: String, values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        WebPage.page(template, title: title, app: "places", menu: menu(current), values: values, secrets: app.secrets, status: status)
    }

    private func placeID(_ context: WebContext) throws -> Place.ID {
        guard let raw = context.parameters.get("id"), let id = Place.ID(raw), id.rawValue > 0 else { throw HTTPError(.notFound, message: "no such place") }
        return id
    }

    // MARK: - The map

    /// How many places the map and its list show: the nearest that pass the filters (a smaller
    /// radius or the filters reach the others).
    static let listSize = 50

    func map(_ query: WebForm, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        var values: [String: Any] = [
            "types": BusinessType.allCases.map { ["value": $0.rawValue, "selected": query.all("type").contains($0.rawValue)] },
            "openNow": query.first("open") == "1",
            "dimensions": RatingDimension.allCases.map { dimension -> [String: Any] in
                let minimum = query.first("min-\(dimension.rawValue)") ?? "", maximum = query.first("max-\(dimension.rawValue)") ?? ""
                return ["name": dimension.rawValue,
                        "options": [["value": "", "label": "any", "selected": minimum.isEmpty]]
                            + (0...5).map { ["value": String($0), "label": "≥ \($0)", "selected": minimum == String($0)] },
                        "maxOptions": [["value": "", "label": "any", "selected": maximum.isEmpty]]
                            + (0...5).map { ["value": String($0), "label": "≤ \($0)", "selected": maximum == String($0)] }]
            },
            "radius": query.first("radius") ?? "1500",
        ]
        if let error { values["error"] = error }
        guard let location = try await store.location() else {
            return page("places-map", title: "Places", current: "/places", values: values, status: status)
        }
        values["location"] = location.coordinate.description
        var minimums: [RatingDimension: Int] = [:], maximums: [RatingDimension: Int] = [:]
        for dimension in RatingDimension.allCases {
            if let value = query.first("min-\(dimension.rawValue)").flatMap(Int.init), (0...5).contains(value) { minimums[dimension] = value }
            if let value = query.first("max-\(dimension.rawValue)").flatMap(Int.init), (0...5).contains(value) { maximums[dimension] = value }
        }
        let radius = Double(query.first("radius") ?? "").flatMap { $0.isFinite && $0 > 0 ? min($0, 50_000) : nil } ?? 1500
        let found = try await store.near(PlaceQuery(
            center: location.coordinate, radius: radius, limit: Self.listSize, types: Set(query.all("type").compactMap(BusinessType.init(rawValue:))),
            minimums: minimums, maximums: maximums, openNow: query.first("open") == "1"))
        var svg = MapRenderer.svg(found, center: location.coordinate, radius: radius, size: 640)
        if svg.hasPrefix("<?xml"), let end = svg.range(of: "?>") { svg = String(svg[end.upperBound...]) }
        values["map"] = Self.linkingPins(svg)
        values["full"] = found.count >= Self.listSize
        values["places"] = found.map { nearby -> [String: Any] in
            var row: [String: Any] = [
                "id": nearby.place.id.rawValue, "name": nearby.place.name, "type": nearby.place.type.rawValue,
                "distance": nearby.distance < 1000 ? "\(Int(nearby.distance.rounded())) m" : String(format: "%.1f km", nearby.distance / 1000),
                "rated": nearby.place.pinState == .saved,
            ]
            if let open = nearby.isOpen { row["open"] = open ? "open now" : "closed now" }
            // The interactive map's pins are read from the rows (see `WebScript.map`).
            row["lat"] = String(nearby.place.coordinate.latitude)
            row["lon"] = String(nearby.place.coordinate.longitude)
            row["color"] = nearby.place.pinColor.rawValue
            row["hex"] = nearby.place.pinColor.hex
            return row
        }
        // With Debian's Leaflet here the map becomes a map with streets (the SVG stays the
        // picture without JavaScript); tiles may come from the tile server alone, which learns
        // this app's origin but no page address.
        if let leaflet = app.map.leaflet {
            values["live"] = [
                "lat": String(location.coordinate.latitude), "lon": String(location.coordinate.longitude), "radius": String(radius),
                "tiles": app.map.tiles.template, "attribution": TileSource.attribution,
                "styles": [leaflet.url("leaflet.css"), leaflet.url("MarkerCluster.css")].map { ["href": $0] },
                "scripts": [leaflet.url("leaflet.js"), leaflet.url("leaflet.markercluster.js"), WebAssets.mapScriptURL].map { ["src": $0] },
            ] as [String: Any]
        }
        var response = page("places-map", title: "Places", current: "/places", values: values, status: status)
        if app.map.leaflet != nil {
            response.headers[HTTPField.Name("Content-Security-Policy")!] = WebPage.contentSecurityPolicy(tileOrigin: app.map.tiles.origin)
            response.headers[HTTPField.Name("Referrer-Policy")!] = "strict-origin"
        }
        return response
    }

    /// The map with each pin a link to its place's page (the seed's "click a pin").
    static func linkingPins(_ svg: String) -> String {
        var result = "", rest = Substring(svg)
        while let start = rest.range(of: "<g class=\"pin\" data-id=\""), let end = rest[start.upperBound...].range(of: "</g>") {
            let id = rest[start.upperBound...].prefix { $0.isNumber }
            result += rest[..<start.lowerBound]
            result += "<a href=\"/places/place/\(id)\">" + rest[start.lowerBound..<end.upperBound] + "</a>"
            rest = rest[end.upperBound...]
        }
        return result + rest
    }

    func setLocation(_ form: WebForm) async throws -> Response {
        do {
            _ = try await store.setLocation(try Coordinate.parse(form.first("location") ?? ""))
        } catch {
            return try await map(WebForm(), error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/places")
    }

    // MARK: - Adding

    func addForm(fields: [String: String] = [:], error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        var values: [String: Any] = [
            "name": fields["name"] ?? "", "at": fields["at"] ?? "", "address": fields["address"] ?? "",
            "types": BusinessType.allCases.map { ["value": $0.rawValue, "selected": $0.rawValue == (fields["type"] ?? "")] },
        ]
        if fields.isEmpty, let location = try await store.location() { values["at"] = location.coordinate.description }
        if let error { values["error"] = error }
        return page("places-add", title: "Add a place", current: "/places/add", values: values, status: status)
    }

    func add(_ form: WebForm) async throws -> Response {
        let fields = ["name", "at", "address", "type"].reduce(into: [String: String]()) { $0[$1] = form.first($1)?.trimmingCharacters(in: .whitespaces) ?? "" }
        do {
            // Coordinates when given; otherwise the address, looked up on OpenStreetMap with the
            // place's name, kind, hours, phone and website (what the form gives wins).
            let address = fields["address", default: ""]
            let name = fields["name", default: ""]
            var record: PlaceRecord
            if fields["at", default: ""].isEmpty && !address.isEmpty {
                record = try await WebProviders.geocoder().lookUp(address: address, name: name.isEmpty ? nil : name)
                record.origin = .user
                record.providerID = nil
                if let type = BusinessType(rawValue: fields["type", default: ""]) { record.type = type }
            } else {
                record = PlaceRecord(name: name, type: BusinessType(rawValue: fields["type", default: ""]) ?? .other,
                                     coordinate: try Coordinate.parse(fields["at", default: ""]), address: address.isEmpty ? nil : address, origin: .user)
            }
            let place = try await store.add(record)
            return WebPage.redirect("/places/place/\(place.id.rawValue)")
        } catch {
            return try await addForm(fields: fields, error: String(describing: error), status: .unprocessableContent)
        }
    }

    // MARK: - A place and its rating

    func placePage(_ id: Place.ID, saved: Bool = false, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let place: Place
        do {
            place = try await store.place(id)
        } catch {
            throw HTTPError(.notFound, message: String(describing: error))
        }
        let rating = place.rating
        var values: [String: Any] = [
            "id": id.rawValue, "name": place.name, "type": place.type.rawValue, "coordinate": place.coordinate.description,
            "origin": place.origin.rawValue, "saved": saved, "rated": place.pinState == .saved,
            "dimensions": RatingDimension.allCases.map { dimension -> [String: Any] in
                let current = rating?.values[dimension]
                return ["name": dimension.rawValue, "options": [["value": "", "label": "not rated", "selected": current == nil]]
                    + (0...5).map { ["value": String($0), "label": String($0), "selected": current == $0] }]
            },
            "wifiMbps": rating?.wifiMbps.map { String($0) } ?? "",
            "menus": [["value": "", "label": "not rated", "selected": rating?.menu == nil]]
                + MenuOption.allCases.map { ["value": $0.rawValue, "label": $0.rawValue, "selected": rating?.menu == $0] },
            "pins": [["value": "", "label": "automatic (red, blue once rated)", "selected": rating?.pinColor == nil]]
                + PinColor.allCases.map { ["value": $0.rawValue, "label": $0.rawValue, "selected": rating?.pinColor == $0] },
            "types": BusinessType.allCases.map { ["value": $0.rawValue, "selected": $0 == place.type] },
            "notes": rating?.notes ?? "",
        ]
        for (key, value) in [("address", place.address), ("phone", place.phone), ("website", place.website), ("hours", place.openingHours)] {
            if let value, !value.isEmpty { values[key] = value }
        }
        // The number `suite places show` gives: your ratings (or the community's) smoothed
        // towards the middle of the scale while there are few.
        if rating?.quality != nil || place.community?.quality != nil {
            values["quality"] = String(format: "%.2f", PlaceRanking.smoothedQuality(rating, community: place.community))
        }
        if let error { values["error"] = error }
        return page("places-place", title: place.name, current: "", values: values, status: status)
    }

    func rate(_ id: Place.ID, _ form: WebForm) async throws -> Response {
        do {
            var change = RatingChange()
            for dimension in RatingDimension.allCases {
                if let text = form.first(dimension.rawValue), !text.isEmpty { change.values[dimension] = try Rating.value(text, for: dimension) }
            }
            if let text = form.first("wifiMbps"), !text.isEmpty {
                guard let mbps = Double(text), mbps.isFinite, mbps >= 0 else { throw WebInputError("wifi speed: a number of Mbit/s, like 42.5") }
                change.wifiMbps = mbps
            }
            change.menu = try BundlePages.choice(MenuOption.self, form.first("menu") ?? "", named: "menu")
            change.pinColor = try BundlePages.choice(PinColor.self, form.first("pin") ?? "", named: "pin colour")
            change.type = try BundlePages.choice(BusinessType.self, form.first("type") ?? "", named: "kind")
            change.notes = form.first("notes")
            _ = try await store.rate(id, change)
        } catch {
            return try await placePage(id, error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/places/place/\(id.rawValue)?saved=1")
    }
}

/// Input the web app itself refuses (the cores check the rest).
struct WebInputError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Provider fetches started from the map page, each followed on its own page until it ends.
actor FetchJobs {
    struct Job {
        var provider: String
        var messages: [String] = []
        var started = Date()
        var summary: String?
        var error: String?
        var isRunning: Bool { summary == nil && error == nil }
    }

    private var jobs: [UUID: Job] = [:]

    func start(_ provider: String) -> UUID {
        let id = UUID()
        jobs[id] = Job(provider: provider)
        // At most the 20 newest are kept.
        if jobs.count > 20, let oldest = jobs.min(by: { $0.value.started < $1.value.started })?.key { jobs[oldest] = nil }
        return id
    }

    func note(_ id: UUID, _ message: String) { jobs[id]?.messages.append(message) }
    func finish(_ id: UUID, summary: String) { jobs[id]?.summary = summary }
    func fail(_ id: UUID, error: String) { jobs[id]?.error = error }
    func job(_ id: UUID) -> Job? { jobs[id] }
}

/// Where the providers are: the real services unless `SUITE_OVERPASS_URL`, `SUITE_YELP_URL` or
/// `SUITE_NOMINATIM_URL` say otherwise, read by ``SuiteEnvironment`` as the `suite` command reads them.
enum WebProviders {
    static let userAgent = SuiteEnvironment.userAgent("places")

    static func url(_ provider: SuiteEnvironment.Provider) throws -> URL {
        do {
            return try SuiteEnvironment().url(of: provider)
        } catch {
            throw WebInputError(error.description)
        }
    }

    static func geocoder() throws -> NominatimGeocoder {
        NominatimGeocoder(baseURL: try url(.nominatim), userAgent: userAgent, timeout: 20, client: URLSessionHTTPClient())
    }

    static func provider(_ name: String) throws -> any PlaceProvider {
        switch name {
        case "yelp":
            return YelpProvider(apiKey: SuiteEnvironment().yelpAPIKey, baseURL: try url(.yelp), timeout: 20, client: URLSessionHTTPClient())
        default:
            return OverpassProvider(baseURL: try url(.overpass), userAgent: userAgent, timeout: 30, client: URLSessionHTTPClient())
        }
    }
}

extension PlacePages {
    func registerFetching(on router: Router<WebContext>) {
        router.post("/places/fetch") { _, context in try await startFetch(context.form) }
        router.get("/places/fetch/{job}") { _, context in try await fetchPage(context.parameters.get("job") ?? "") }
    }

    func startFetch(_ form: WebForm) async throws -> Response {
        let requested = form.first("provider") ?? ""
        guard ["", "osm", "yelp"].contains(requested) else {
            return try await map(WebForm(), error: "unknown provider '\(requested)' (osm or yelp)", status: .unprocessableContent)
        }
        let name = requested == "yelp" ? "yelp" : "osm"
        let radius: Double
        let center: Coordinate
        let provider: any PlaceProvider
        do {
            guard let location = try await store.location() else { throw WorkplaceError.noLocation }
            center = location.coordinate
            radius = try Geo.parseDistance(form.first("radius").flatMap { $0.isEmpty ? nil : $0 } ?? "1.5km")
            guard radius > 0 else { throw WebInputError("the radius must be more than 0") }
            provider = try WebProviders.provider(name)
        } catch {
            return try await map(WebForm(), error: String(describing: error), status: .unprocessableContent)
        }
        let jobs = app.fetchJobs, store = self.store
        let id = await jobs.start(provider.name)
        Task {
            do {
                let records = try await provider.places(near: center, radius: radius, progress: { message in Task { await jobs.note(id, message) } })
                let summary = try await store.upsert(records)
                await jobs.finish(id, summary: "Fetched \(records.count) place\(records.count == 1 ? "" : "s") from \(provider.name): \(summary.added) new, \(summary.updated) refreshed.")
            } catch {
                await jobs.fail(id, error: String(describing: error))
            }
        }
        return WebPage.redirect("/places/fetch/\(id.uuidString)")
    }

    func fetchPage(_ raw: String) async throws -> Response {
        guard let id = UUID(uuidString: raw), let job = await app.fetchJobs.job(id) else { throw HTTPError(.notFound, message: "no such fetch") }
        var values: [String: Any] = [
            "provider": job.provider, "running": job.isRunning, "messages": job.messages.map { ["text": $0] },
            "elapsed": String(format: "%.1f s", Date().timeIntervalSince(job.started)),
        ]
        if let summary = job.summary { values["summary"] = summary }
        if let error = job.error { values["error"] = error }
        var response = page("places-fetch", title: "Fetching", current: "/places", values: values)
        if job.isRunning { response.headers[HTTPField.Name("Refresh")!] = "1" }
        return response
    }
}
