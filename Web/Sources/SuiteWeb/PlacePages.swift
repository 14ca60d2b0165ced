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

    private func page(_ content: some WebViewModel, title: String, current: String, status: HTTPResponse.Status = .ok) -> Response {
        WebPage.page(content, title: title, app: "places", menu: menu(current), secrets: app.secrets, status: status)
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
        var shown = Map(
            types: BusinessType.allCases.map { WebPage.Choice(value: $0.rawValue, selected: query.all("type").contains($0.rawValue)) },
            openNow: query.first("open") == "1",
            dimensions: RatingDimension.allCases.map { dimension in
                let minimum = query.first("min-\(dimension.rawValue)") ?? "", maximum = query.first("max-\(dimension.rawValue)") ?? ""
                return Map.Dimension(
                    name: dimension.rawValue,
                    options: [WebPage.Option(value: "", label: "any", selected: minimum.isEmpty)]
                        + (0...5).map { WebPage.Option(value: String($0), label: "≥ \($0)", selected: minimum == String($0)) },
                    maxOptions: [WebPage.Option(value: "", label: "any", selected: maximum.isEmpty)]
                        + (0...5).map { WebPage.Option(value: String($0), label: "≤ \($0)", selected: maximum == String($0)) })
            },
            radius: query.first("radius") ?? "1500", error: error)
        guard let location = try await store.run({ try $0.location() }) else {
            return page(shown, title: "Places", current: "/places", status: status)
        }
        shown.location = location.coordinate.description
        var minimums: [RatingDimension: Int] = [:], maximums: [RatingDimension: Int] = [:]
        for dimension in RatingDimension.allCases {
            if let value = query.first("min-\(dimension.rawValue)").flatMap(Int.init), (0...5).contains(value) { minimums[dimension] = value }
            if let value = query.first("max-\(dimension.rawValue)").flatMap(Int.init), (0...5).contains(value) { maximums[dimension] = value }
        }
        let radius = Double(query.first("radius") ?? "").flatMap { $0.isFinite && $0 > 0 ? min($0, 50_000) : nil } ?? 1500
        let nearQuery = PlaceQuery(
            center: location.coordinate, radius: radius, limit: Self.listSize, types: Set(query.all("type").compactMap(BusinessType.init(rawValue:))),
            minimums: minimums, maximums: maximums, openNow: query.first("open") == "1")
        let found: [NearbyPlace] = try await store.run { try $0.near(nearQuery) }
        var svg = MapRenderer.svg(found, center: location.coordinate, radius: radius, size: 640)
        if svg.hasPrefix("<?xml"), let end = svg.range(of: "?>") { svg = String(svg[end.upperBound...]) }
        shown.map = Self.linkingPins(svg)
        shown.full = found.count >= Self.listSize
        shown.places = found.map { nearby in
            Map.Row(
                id: nearby.place.id.rawValue, name: nearby.place.name, type: nearby.place.type.rawValue,
                distance: nearby.distance < 1000 ? "\(Int(nearby.distance.rounded())) m" : String(format: "%.1f km", nearby.distance / 1000),
                rated: nearby.place.pinState == .saved, open: nearby.isOpen.map { $0 ? "open now" : "closed now" },
                // The interactive map's pins are read from the rows (see `WebScript.map`).
                lat: String(nearby.place.coordinate.latitude), lon: String(nearby.place.coordinate.longitude),
                color: nearby.place.pinColor.rawValue, hex: nearby.place.pinColor.hex)
        }
        // With Debian's Leaflet here the map becomes a map with streets (the SVG stays the
        // picture without JavaScript); tiles may come from the tile server alone, which learns
        // this app's origin but no page address.
        if let leaflet = app.map.leaflet {
            shown.live = Map.Live(
                lat: String(location.coordinate.latitude), lon: String(location.coordinate.longitude), radius: String(radius),
                tiles: app.map.tiles.template, attribution: TileSource.attribution,
                styles: [leaflet.url("leaflet.css"), leaflet.url("MarkerCluster.css")].map { Map.Live.Style(href: $0) },
                scripts: [leaflet.url("leaflet.js"), leaflet.url("leaflet.markercluster.js"), WebAssets.mapScriptURL].map { Map.Live.Script(src: $0) })
        }
        var response = page(shown, title: "Places", current: "/places", status: status)
        if app.map.leaflet != nil {
            response.headers[HTTPField.Name("Content-Security-Policy")!] = WebPage.contentSecurityPolicy(tileOrigin: app.map.tiles.origin)
            response.headers[HTTPField.Name("Referrer-Policy")!] = "strict-origin"
        }
        return response
    }

    /// The map with each pin a link to its place's page (the seed's "click a pin"). Works on the
    /// UTF-8 bytes: searching the `String` went through Foundation's UTF-16 offsets, a quarter
    /// of the map page's time with 50 pins.
    static func linkingPins(_ svg: String) -> String {
        let bytes = Array(svg.utf8)
        let open = Array("<g class=\"pin\" data-id=\"".utf8), close = Array("</g>".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + bytes.count / 8)
        var at = 0
        while let start = firstIndex(of: open, in: bytes, from: at), let end = firstIndex(of: close, in: bytes, from: start + open.count) {
            var idEnd = start + open.count
            while idEnd < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[idEnd]) { idEnd += 1 }
            result += bytes[at..<start]
            result += Array("<a href=\"/places/place/".utf8) + bytes[(start + open.count)..<idEnd] + Array("\">".utf8)
            result += bytes[start..<(end + close.count)]
            result += Array("</a>".utf8)
            at = end + close.count
        }
        result += bytes[at...]
        return String(decoding: result, as: UTF8.self)
    }

    /// Where `needle` first starts in `bytes` at or after `from`.
    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = from
        while index <= bytes.count - needle.count {
            if bytes[index] == first && bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    func setLocation(_ form: WebForm) async throws -> Response {
        do {
            _ = try await store.run { try $0.setLocation(try Coordinate.parse(form.first("location") ?? "")) }
        } catch {
            return try await map(WebForm(), error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/places")
    }

    // MARK: - Adding

    func addForm(fields: [String: String] = [:], error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        var at = fields["at"] ?? ""
        if fields.isEmpty, let location = try await store.run({ try $0.location() }) { at = location.coordinate.description }
        let shown = Add(name: fields["name"] ?? "", at: at, address: fields["address"] ?? "",
                        types: BusinessType.allCases.map { WebPage.Choice(value: $0.rawValue, selected: $0.rawValue == (fields["type"] ?? "")) },
                        error: error)
        return page(shown, title: "Add a place", current: "/places/add", status: status)
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
            let added = record
            let place = try await store.run { try $0.add(added) }
            return WebPage.redirect("/places/place/\(place.id.rawValue)")
        } catch {
            return try await addForm(fields: fields, error: String(describing: error), status: .unprocessableContent)
        }
    }

    // MARK: - A place and its rating

    func placePage(_ id: Place.ID, saved: Bool = false, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let place: Place
        do {
            place = try await store.run { try $0.place(id) }
        } catch {
            throw HTTPError(.notFound, message: String(describing: error))
        }
        let rating = place.rating
        // A text shown only when there is one.
        func given(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        let shown = PlaceView(
            id: id.rawValue, name: place.name, type: place.type.rawValue, coordinate: place.coordinate.description,
            origin: place.origin.rawValue, saved: saved, rated: place.pinState == .saved,
            dimensions: RatingDimension.allCases.map { dimension in
                let current = rating?.values[dimension]
                return PlaceView.Dimension(name: dimension.rawValue, options: [WebPage.Option(value: "", label: "not rated", selected: current == nil)]
                    + (0...5).map { WebPage.Option(value: String($0), label: String($0), selected: current == $0) })
            },
            wifiMbps: rating?.wifiMbps.map { String($0) } ?? "",
            menus: [WebPage.Option(value: "", label: "not rated", selected: rating?.menu == nil)]
                + MenuOption.allCases.map { WebPage.Option(value: $0.rawValue, label: $0.rawValue, selected: rating?.menu == $0) },
            pins: [WebPage.Option(value: "", label: "automatic (red, blue once rated)", selected: rating?.pinColor == nil)]
                + PinColor.allCases.map { WebPage.Option(value: $0.rawValue, label: $0.rawValue, selected: rating?.pinColor == $0) },
            types: BusinessType.allCases.map { WebPage.Choice(value: $0.rawValue, selected: $0 == place.type) },
            notes: rating?.notes ?? "",
            address: given(place.address), phone: given(place.phone), website: given(place.website), hours: given(place.openingHours),
            // The number `suite places show` gives: your ratings (or the community's) smoothed
            // towards the middle of the scale while there are few.
            quality: rating?.quality != nil || place.community?.quality != nil
                ? String(format: "%.2f", PlaceRanking.smoothedQuality(rating, community: place.community)) : nil,
            error: error)
        return page(shown, title: place.name, current: "", status: status)
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
            change.menu = try WebForm.choice(MenuOption.self, form.first("menu") ?? "", named: "menu")
            change.pinColor = try WebForm.choice(PinColor.self, form.first("pin") ?? "", named: "pin colour")
            change.type = try WebForm.choice(BusinessType.self, form.first("type") ?? "", named: "kind")
            change.notes = form.first("notes")
            let rating = change
            _ = try await store.run { try $0.rate(id, rating) }
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
            guard let location = try await store.run({ try $0.location() }) else { throw WorkplaceError.noLocation }
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
                let summary = try await store.run { try $0.upsert(records) }
                await jobs.finish(id, summary: "Fetched \(records.count) place\(records.count == 1 ? "" : "s") from \(provider.name): \(summary.added) new, \(summary.updated) refreshed.")
            } catch {
                await jobs.fail(id, error: String(describing: error))
            }
        }
        return WebPage.redirect("/places/fetch/\(id.uuidString)")
    }

    func fetchPage(_ raw: String) async throws -> Response {
        guard let id = UUID(uuidString: raw), let job = await app.fetchJobs.job(id) else { throw HTTPError(.notFound, message: "no such fetch") }
        let shown = Fetch(provider: job.provider, running: job.isRunning, messages: job.messages.map { Fetch.Message(text: $0) },
                          elapsed: String(format: "%.1f s", Date().timeIntervalSince(job.started)), summary: job.summary, error: job.error)
        var response = page(shown, title: "Fetching", current: "/places")
        if job.isRunning { response.headers[HTTPField.Name("Refresh")!] = "1" }
        return response
    }
}

// MARK: - View models

extension PlacePages {
    /// The map page: the filters, and with a location the map and the places on it.
    struct Map: WebViewModel {
        static let template = "places-map"

        /// A rating's filter: at least and at most.
        struct Dimension: TemplateValues {
            let name: String
            let options: [WebPage.Option]
            let maxOptions: [WebPage.Option]
        }

        /// A place of the list (and a pin of the interactive map).
        struct Row: TemplateValues {
            let id: Int64
            let name: String
            let type: String
            let distance: String
            let rated: Bool
            /// "open now" or "closed now", when the hours say.
            let open: String?
            let lat: String
            let lon: String
            let color: String
            let hex: String
        }

        /// The map with streets (Leaflet, with tiles from the tile server).
        struct Live: TemplateValues {
            struct Style: TemplateValues { let href: String }
            struct Script: TemplateValues { let src: String }

            let lat: String
            let lon: String
            let radius: String
            let tiles: String
            let attribution: String
            let styles: [Style]
            let scripts: [Script]
        }

        let types: [WebPage.Choice]
        let openNow: Bool
        let dimensions: [Dimension]
        /// The radius field's text.
        let radius: String
        let error: String?
        /// Your location; nothing below is there without it.
        var location: String?
        /// The SVG map, drawn here (raw HTML in the page).
        var map: String?
        /// Whether the list is as long as it may be.
        var full: Bool?
        var places: [Row]?
        var live: Live?
    }

    struct Add: WebViewModel {
        static let template = "places-add"
        let name: String
        let at: String
        let address: String
        let types: [WebPage.Choice]
        let error: String?
    }

    /// A place and the form to rate it.
    struct PlaceView: WebViewModel {
        static let template = "places-place"

        struct Dimension: TemplateValues {
            let name: String
            let options: [WebPage.Option]
        }

        let id: Int64
        let name: String
        let type: String
        let coordinate: String
        let origin: String
        let saved: Bool
        let rated: Bool
        let dimensions: [Dimension]
        let wifiMbps: String
        let menus: [WebPage.Option]
        let pins: [WebPage.Option]
        let types: [WebPage.Choice]
        let notes: String
        let address: String?
        let phone: String?
        let website: String?
        let hours: String?
        let quality: String?
        let error: String?
    }

    /// A fetch from a provider, while it runs and once it ended.
    struct Fetch: WebViewModel {
        static let template = "places-fetch"

        struct Message: TemplateValues { let text: String }

        let provider: String
        let running: Bool
        let messages: [Message]
        let elapsed: String
        let summary: String?
        let error: String?
    }
}
