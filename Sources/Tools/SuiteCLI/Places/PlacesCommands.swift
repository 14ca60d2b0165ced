import ArgumentParser
import Foundation
import WorkplaceCore

extension PlacesCommand {
    struct Location: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "location", abstract: "Show or set your current location.",
            subcommands: [Show.self, Set.self], defaultSubcommand: Show.self)

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show", abstract: "Your current location.",
                                                            discussion: "Example:\n  suite places location")
            @OptionGroup var options: CommonOptions
            func run() throws {
                guard let location = try Places.open(options, readOnly: true).location() else {
                    throw CLIError.failed("no current location: set one with 'suite places location set LAT,LON'")
                }
                if options.json {
                    try Terminal.printJSON(["latitude": location.coordinate.latitude, "longitude": location.coordinate.longitude])
                    return
                }
                print(location.coordinate.description + (location.label.map { "  (\($0))" } ?? ""))
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set", abstract: "Set your current location: LAT,LON or an address (looked up on OpenStreetMap).",
                usage: "suite places location set <where> [--store-dir <dir>] [--json]",
                discussion: "Examples:\n  suite places location set 52.5200,13.4050\n  suite places location set -33.8688,151.2093\n  suite places location set \"Alexanderplatz, Berlin\"")
            @OptionGroup var options: CommonOptions
            @OptionGroup var providers: ProviderOptions
            @Argument(parsing: .allUnrecognized, help: ArgumentHelp("LAT,LON (south and west negative) or an address.", valueName: "where"))
            var words: [String] = []

            func validate() throws { _ = try SignedArgument.one(words, name: "where") }

            func run() async throws {
                let place = try SignedArgument.one(words, name: "where")
                let store = try Places.open(options)
                if let coordinate = try? Coordinate.parse(place) {
                    try await store.run { try $0.setLocation(coordinate) }
                    try report(coordinate, label: nil)
                    return
                }
                if place.range(of: #"^\s*-?[0-9.]+\s*,\s*-?[0-9.]+\s*$"#, options: .regularExpression) != nil {
                    _ = try Coordinate.parse(place)  // numbers out of range: say so rather than geocode them
                }
                let found = try await Spinner.around("Looking up the address on OpenStreetMap…") { _ in try await providers.geocoder().geocode(place) }
                try await store.run { try $0.setLocation(found.coordinate, label: found.displayName) }
                try report(found.coordinate, label: found.displayName)
            }

            /// The location set: a line, or with --json what `location show --json` prints and the label.
            private func report(_ coordinate: Coordinate, label: String?) throws {
                struct Output: Encodable { let latitude: Double, longitude: Double, label: String? }
                if options.json {
                    try Terminal.printJSON(Output(latitude: coordinate.latitude, longitude: coordinate.longitude, label: label))
                } else {
                    print("Current location: \(coordinate)" + (label.map { "  (\($0))" } ?? ""))
                }
            }
        }
    }

    struct Near: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "near",
            abstract: "Places near you, nearest first or best first.",
            discussion: """
                Ratings run 0–5. Higher is better for outlets, wifi and seating: ask for a least \
                value with --min (--min wifi=4). Lower is better for noise (0 silent … 5 loud) and \
                cost (0 cheap … 5 expensive): ask for a most value with --max (--max noise=2 finds \
                quiet places). A place without that rating does not match either.

                --sort score ranks by your ratings and distance, and shows each score: \
                \(PlaceRanking.summary). So a place you rated well beats an unrated one at a \
                similar distance, and an unrated one beats a place you rated badly.

                --open-now uses the stored opening hours in your time zone; places with unknown \
                hours are left out. Without --radius (--radius 0 means the point itself) it finds \
                the nearest --limit places anywhere. Coordinates south and west are negative.

                Examples:
                  suite places near --radius 1.5km --type coffee-shop,library
                  suite places near --min wifi=4,outlets=3 --max noise=2 --open-now --sort score
                  suite places near --at -33.8688,151.2093 --limit 5
                """)

        @OptionGroup var options: CommonOptions
        @Option(name: .customLong(.at), parsing: .unconditional,
                help: ArgumentHelp("LAT,LON, south and west negative (default: your current location).", valueName: "lat,lon"))
        var at: String?
        @Option(name: .customLong(.radius), parsing: .unconditional, help: ArgumentHelp("How far: 800m, 1.5km (default 1.5km).", valueName: "distance"))
        var radius: String?
        @Flag(help: "The nearest places anywhere, however far.") var anywhere = false
        @Option(name: .customLong(.limit), parsing: .unconditional, help: ArgumentHelp("At most this many (default \(Self.defaultLimit)).", valueName: "n")) var limit = Self.defaultLimit
        /// `--limit` when not given (FastPath reads it from here too).
        static let defaultLimit = 20
        @Option(name: .customLong(.type),
                help: ArgumentHelp("Kinds, comma-separated: coffee-shop, library, coworking, bar, restaurant, other.", valueName: "types"))
        var type: String?
        @Option(name: .customLong(.min), help: ArgumentHelp("Least ratings, for what is better high: wifi=4,outlets=3 (outlets, wifi, seating).", valueName: "pairs"))
        var min: String?
        @Option(name: .customLong(.max),
                help: ArgumentHelp("Most ratings, for what is better low: noise=2,cost=2 (noise 0 silent … 5 loud; cost 0 cheap … 5 dear).",
                                   valueName: "pairs"))
        var max: String?
        @Flag(name: .customLong(.openNow), help: "Only places open now.") var openNow = false
        @Option(help: ArgumentHelp("distance or score (your ratings with distance; the score is shown).", valueName: "order")) var sort: PlaceSort = .distance

        func validate() throws {
            if anywhere && radius != nil { throw ValidationError("give --radius or --anywhere, not both") }
        }

        func run() throws {
            try Self.run(options.plain, at: at, radius: radius, anywhere: anywhere, limit: limit, type: type, min: min, max: max, openNow: openNow, sort: sort)
        }

        /// Reads `dimension=value,…` for --min or --max.
        static func bounds(_ text: String?, option: String) throws -> [RatingDimension: Int] {
            var bounds: [RatingDimension: Int] = [:]
            for pair in (text ?? "").split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, let dimension = RatingDimension(rawValue: parts[0]) else {
                    throw CLIError.usage("invalid \(option) '\(pair)': use dimension=value with \(RatingDimension.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                bounds[dimension] = try Rating.value(parts[1], for: dimension)
            }
            return bounds
        }

        static func run(_ options: PlainStoreOptions, at: String?, radius: String?, anywhere: Bool, limit: Int, type: String?, min: String?,
                        max: String? = nil, openNow: Bool, sort: PlaceSort) throws {
            let store = try Places.open(options, readOnly: true)
            let center = try Places.center(at, store: store)
            let types = try Places.types(type)
            let minimums = try bounds(min, option: OptionName.min.flag), maximums = try bounds(max, option: OptionName.max.flag)
            let query = PlaceQuery(center: center, radius: anywhere ? nil : try Geo.parseDistance(radius ?? "1.5km"), limit: limit, types: types,
                                   minimums: minimums, maximums: maximums, openNow: openNow, sort: sort)
            let found = try store.near(query)
            if options.json { try Terminal.printJSON(found); return }
            if found.isEmpty { print(try nothingFound(store, query: query, radius: anywhere ? nil : radius ?? "1.5km", min: min, max: max)); return }
            found.forEach { print(Places.describe($0, showScore: sort == .score)) }
        }

        /// Why `query` found nothing, in one line: no places stored, none within the radius, or
        /// the filters that leave none of the places within it (each tried alone).
        static func nothingFound(_ store: PlaceStore, query: PlaceQuery, radius: String?, min: String?, max: String?) throws -> String {
            let fetch = "suite places fetch --provider osm"
            var anywhere = PlaceQuery(center: query.center, radius: nil, limit: 1, now: query.now, timeZone: query.timeZone)
            guard !(try store.near(anywhere)).isEmpty else { return "No places stored yet. Fetch some: \(fetch)" }
            var unfiltered = anywhere
            unfiltered.radius = query.radius
            unfiltered.limit = 10_000
            let around = try store.near(unfiltered)
            let within = radius.map { "within \($0)" } ?? "anywhere"
            guard !around.isEmpty else {
                return "No places within \(radius ?? "reach") of \(query.center): widen --radius or use --anywhere, or fetch some here: \(fetch)"
            }
            // Each filter alone, over the places within the radius.
            anywhere = unfiltered
            var excluding: [String] = []
            if !query.types.isEmpty {
                var alone = anywhere
                alone.types = query.types
                if try store.near(alone).isEmpty {
                    excluding.append("none is a \(query.types.map(\.rawValue).sorted().joined(separator: " or ")) (--type)")
                }
            }
            if !query.minimums.isEmpty || !query.maximums.isEmpty {
                var alone = anywhere
                alone.minimums = query.minimums
                alone.maximums = query.maximums
                if try store.near(alone).isEmpty {
                    let asked = [min.map { "--min \($0)" }, max.map { "--max \($0)" }].compactMap { $0 }.joined(separator: " ")
                    let rated = around.filter { $0.place.rating != nil }.count
                    excluding.append("none has those ratings (\(asked); \(rated) of them rated at all)")
                }
            }
            if query.openNow {
                var alone = anywhere
                alone.openNow = true
                if try store.near(alone).isEmpty { excluding.append("none is open now by its known hours (--open-now)") }
            }
            let count = around.count >= 10_000 ? "10,000 or more" : "\(around.count)"
            let places = "\(count) place\(around.count == 1 ? "" : "s") \(within)"
            if excluding.isEmpty {
                return "No places match all the filters together: \(places), and each filter alone leaves some; drop one of them"
            }
            return "No places match: \(places), but " + excluding.joined(separator: "; ")
        }
    }

    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fetch",
            abstract: "Fetch places around you from Yelp (needs YELP_API_KEY) or OpenStreetMap.",
            discussion: """
                Known places are refreshed, never losing your ratings, notes or pin colours. Yelp \
                results are paged up to Yelp's 240; opening hours are fetched for the nearest --hours \
                of them. OpenStreetMap data is © OpenStreetMap contributors (ODbL).

                Examples:
                  suite places fetch --provider osm --radius 1km
                  YELP_API_KEY=... suite places fetch --provider yelp --hours 10
                """)

        enum Provider: String, ExpressibleByArgument { case yelp, osm }

        @OptionGroup var options: CommonOptions
        @OptionGroup var providers: ProviderOptions
        @Option(help: ArgumentHelp("yelp or osm.", valueName: "provider")) var provider: Provider = .osm
        @Option(parsing: .unconditional, help: ArgumentHelp("LAT,LON, south and west negative (default: your current location).", valueName: "lat,lon"))
        var at: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("How far (default 1.5km; Yelp allows 40km).", valueName: "distance")) var radius = "1.5km"
        @Option(parsing: .unconditional, help: ArgumentHelp("Yelp: fetch opening hours for this many places (0 to 240).", valueName: "n"),
                transform: NumberOption.int(0...240, "--hours"))
        var hours = 20

        func run() async throws {
            let store = try Places.open(options)
            let center = try Places.center(at, store: store)
            let metres = try Geo.parseDistance(radius)
            guard metres > 0 else { throw CLIError.usage("--radius must be more than 0") }
            let source: any PlaceProvider
            switch provider {
            case .yelp:
                let key = Terminal.suite.yelpAPIKey
                source = YelpProvider(apiKey: key, baseURL: try providers.url(.yelp, option: providers.yelpURL),
                                      hoursLimit: hours, timeout: providers.timeout, client: CurlHTTPClient())
            case .osm:
                source = OverpassProvider(baseURL: try providers.url(.overpass, option: providers.overpassURL),
                                          userAgent: ProviderOptions.userAgent, timeout: providers.timeout, client: CurlHTTPClient())
            }
            let records = try await Spinner.around("Asking \(source.name)…") { sink in
                try await source.places(near: center, radius: metres, progress: sink.callback)
            }
            let summary = try await store.run { try $0.upsert(records) }
            if options.json { try Terminal.printJSON(summary); return }
            print("Fetched \(records.count) place\(records.count == 1 ? "" : "s") from \(source.name): \(summary.added) new, \(summary.updated) refreshed.")
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a place yourself: by coordinates, or by its address, looked up with its name, hours and contact details.",
            discussion: """
                With --address and no --at, the address is looked up on OpenStreetMap (or Yelp with \
                --provider yelp and YELP_API_KEY): the place found brings its name, kind, opening \
                hours, phone and website. What you give (--name, --type, --hours, --phone, \
                --website) is kept instead.

                Examples:
                  suite places add --name "Reading room" --at 52.5163,13.3777 --type library
                  suite places add --address "Café Blau, Oranienstraße 12, Berlin"
                  suite places add --address "Oranienstraße 12, Berlin" --name "Café Blau" --provider yelp
                """)

        @OptionGroup var options: CommonOptions
        @OptionGroup var providers: ProviderOptions
        @Option(help: ArgumentHelp("Its name (with --address: the one found, unless given).", valueName: "name")) var name: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("LAT,LON, south and west negative.", valueName: "lat,lon")) var at: String?
        @Option(help: ArgumentHelp("Its address (looked up when --at is not given).", valueName: "address")) var address: String?
        @Option(help: ArgumentHelp("Where to look the address up: osm or yelp.", valueName: "provider")) var provider: Fetch.Provider = .osm
        @Option(help: ArgumentHelp("coffee-shop, library, coworking, bar, restaurant or other.", valueName: "type")) var type: BusinessType?
        @Option(help: ArgumentHelp("Phone number.", valueName: "phone")) var phone: String?
        @Option(help: ArgumentHelp("Website.", valueName: "url")) var website: String?
        @Option(help: ArgumentHelp("Opening hours in OSM syntax, like \"Mo-Fr 08:00-18:00; Sa 09:00-14:00\".", valueName: "hours")) var hours: String?

        func validate() throws {
            if at == nil && address == nil { throw ValidationError("give --at LAT,LON or --address") }
            if at != nil && name == nil { throw ValidationError("give --name with --at") }
        }

        func run() async throws {
            let store = try Places.open(options)
            var record: PlaceRecord
            var found: [String] = []
            if let at {
                record = PlaceRecord(name: name ?? "", type: type ?? .other, coordinate: try Coordinate.parse(at), address: address, origin: .user)
            } else {
                let lookup: any AddressLookup
                switch provider {
                case .osm:
                    lookup = try providers.geocoder()
                case .yelp:
                    lookup = YelpProvider(apiKey: Terminal.suite.yelpAPIKey,
                                          baseURL: try providers.url(.yelp, option: providers.yelpURL),
                                          timeout: providers.timeout, client: CurlHTTPClient())
                }
                let service = provider == .osm ? "OpenStreetMap" : "Yelp"
                let match = try await Spinner.around("Looking up the address on \(service)…") { _ in
                    try await lookup.lookUp(address: address ?? "", name: name)
                }
                record = match
                record.origin = .user
                record.providerID = nil
                if let type { record.type = type }
                for (label, value, given) in [("hours", match.openingHours, hours), ("phone", match.phone, phone), ("website", match.website, website)]
                    where given == nil && value != nil {
                    found.append(label)
                }
            }
            if let phone { record.phone = phone }
            if let website { record.website = website }
            if let hours { record.openingHours = hours }
            let added = record
            let place = try await store.run { try $0.add(added) }
            if options.json { try Terminal.printJSON(place); return }
            print("Added #\(place.id) \(place.name) at \(place.coordinate).")
            if !found.isEmpty { print("From the lookup: \(found.joined(separator: ", ")) ('suite places show \(place.id)').") }
        }
    }

    struct Rate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rate", abstract: "Rate a place 0–5 on what matters for working (any subset; the rest stays).",
            usage: "suite places rate <id> [--noise <0-5>] [--outlets <0-5>] [--wifi <0-5>] [--cost <0-5>] [--seating <0-5>] [--wifi-mbps <mbps>] [--menu <menu>] [--type <type>] [--notes <text>] [--pin <color>]",
            discussion: "Example:\n  suite places rate 12 --noise 2 --outlets 4 --wifi 5 --cost 3 --seating 4 --wifi-mbps 80 --menu lunch --pin green")

        @OptionGroup var options: CommonOptions
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The place's number.", valueName: "id")) var words: [String] = []
        @Option(parsing: .unconditional, help: ArgumentHelp("Noise 0 (silent) … 5 (loud).", valueName: "0-5")) var noise: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Outlets 0 (none) … 5 (plenty).", valueName: "0-5")) var outlets: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Wifi 0 (none) … 5 (excellent).", valueName: "0-5")) var wifi: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Cost 0 (cheap) … 5 (expensive).", valueName: "0-5")) var cost: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("Seating 0 (none) … 5 (great).", valueName: "0-5")) var seating: String?
        @Option(name: .customLong("wifi-mbps"), parsing: .unconditional, help: ArgumentHelp("Measured download speed.", valueName: "mbps")) var wifiMbps: String?
        @Option(help: ArgumentHelp("drinks, snacks, lunch or full.", valueName: "menu")) var menu: MenuOption?
        @Option(help: ArgumentHelp("What kind of place it is, in your view.", valueName: "type")) var type: BusinessType?
        @Option(help: ArgumentHelp("Notes.", valueName: "text")) var notes: String?
        @Option(help: ArgumentHelp("Pin colour: \(PinColor.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "color")) var pin: PinColor?

        func validate() throws {
            _ = try Places.id(words)
            if [noise, outlets, wifi, cost, seating, wifiMbps, notes].allSatisfy({ $0 == nil }) && menu == nil && type == nil && pin == nil {
                throw ValidationError("nothing to rate: give at least one of --noise, --outlets, --wifi, --cost, --seating, --wifi-mbps, --menu, --type, --notes or --pin")
            }
        }

        func run() throws {
            let id = try Places.id(words)
            var change = RatingChange(menu: menu, notes: notes, pinColor: pin, type: type)
            for (dimension, text) in [(RatingDimension.noise, noise), (.outlets, outlets), (.wifi, wifi), (.cost, cost), (.seating, seating)] {
                if let text { change.values[dimension] = try Rating.value(text, for: dimension) }
            }
            if let wifiMbps {
                guard let value = Double(wifiMbps), value.isFinite, value >= 0 else { throw CLIError.badInput("invalid --wifi-mbps '\(wifiMbps)': use a number of Mbps") }
                change.wifiMbps = value
            }
            let place = try Places.open(options).rate(id, change)
            if options.json { try Terminal.printJSON(place) } else { print("Rated #\(place.id) \(place.name) (\(Places.pin(place.pinColor)) pin).") }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Everything known about a place: details, hours, open now, your rating and its quality.",
            usage: "suite places show <id> [--store-dir <dir>] [--json]",
            discussion: "The quality shown is WR, your ratings smoothed; 'near --sort score' ranks by \(PlaceRanking.summary).\n\nExample:\n  suite places show 12")

        @OptionGroup var options: CommonOptions
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The place's number.", valueName: "id")) var words: [String] = []

        struct Output: Encodable { let place: Place; let openNow: Bool?; let quality: Double }

        func validate() throws { _ = try Places.id(words) }

        func run() throws {
            let id = try Places.id(words)
            let place = try Places.open(options, readOnly: true).place(id)
            let hours = place.openingHours.flatMap(WeeklyHours.parseOSM)
            let open = hours?.isOpen(at: Date(), timeZone: .current)
            let quality = PlaceRanking.smoothedQuality(place.rating, community: place.community)
            if options.json { try Terminal.printJSON(Output(place: place, openNow: open, quality: quality)); return }
            var lines = ["#\(place.id) \(place.name)", "type:     \(place.type.rawValue)", "where:    \(place.coordinate)"]
            if let address = place.address { lines.append("address:  \(address)") }
            if let phone = place.phone { lines.append("phone:    \(phone)") }
            if let website = place.website { lines.append("website:  \(website)") }
            lines.append("hours:    \(place.openingHours ?? "unknown")" + (place.openingHours != nil && hours == nil ? " (not understood)" : ""))
            lines.append("open now: \(open.map { $0 ? "yes" : "no" } ?? "unknown")")
            lines.append("source:   \(place.origin.rawValue)\(place.providerID.map { " \($0)" } ?? "")")
            lines.append("pin:      \(Places.pin(place.pinColor))")
            if let rating = place.rating {
                for dimension in RatingDimension.allCases { lines.append("\(dimension.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(rating.values[dimension].map(String.init) ?? "-")") }
                if let mbps = rating.wifiMbps { lines.append("wifi:     \(mbps) Mbps measured") }
                if let menu = rating.menu { lines.append("menu:     \(menu.rawValue)") }
                if !rating.notes.isEmpty { lines.append("notes:    \(rating.notes)") }
            } else {
                lines.append("not rated yet: suite places rate \(place.id) --wifi 4 …")
            }
            if let community = place.community {
                let medians = RatingDimension.allCases.compactMap { dimension in
                    community.medians[dimension.rawValue].map { "\(dimension.rawValue) \(String(format: "%g", $0))" }
                }
                lines.append("community: \(community.count) rating\(community.count == 1 ? "" : "s")" + (medians.isEmpty ? "" : "; medians " + medians.joined(separator: ", ")))
                if let mbps = community.wifiMbps { lines.append("community wifi: \(String(format: "%g", mbps)) Mbps (median)") }
                if let menu = community.menu { lines.append("community menu: \(menu)") }
                for note in community.notes { lines.append("community note: \(note)") }
            }
            lines.append("quality:  " + Places.explainQuality(place.rating, community: place.community))
            print(lines.joined(separator: "\n"))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a place and your rating of it.",
                                                        usage: "suite places remove <id> [--yes] [--store-dir <dir>]",
                                                        discussion: "Asks on a terminal; otherwise needs --yes.\n\nExample:\n  suite places remove 12 --yes")
        @OptionGroup var options: TextOptions
        @Flag(name: .shortAndLong, help: "Remove without asking.") var yes = false
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The place's number.", valueName: "id")) var words: [String] = []
        func validate() throws { _ = try Places.id(words) }

        func run() throws {
            let id = try Places.id(words)
            let store = try Places.open(options)
            let place = try store.place(id)
            try Confirmation.require("Remove place #\(place.id) \"\(place.name.prefix(40))\"\(place.rating == nil ? "" : " and your rating of it")?", yes: yes)
            try store.remove(id)
            print("Removed #\(id) \(place.name).")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every place, by number; --type for some kinds only.",
            discussion: "Examples:\n  suite places list\n  suite places list --type coffee-shop,library --json")
        @OptionGroup var options: CommonOptions
        @Option(help: ArgumentHelp("Kinds, comma-separated: coffee-shop, library, coworking, bar, restaurant, other.", valueName: "types")) var type: String?

        func run() throws {
            let types = try Places.types(type)
            let places = try Places.open(options, readOnly: true).allPlaces().filter { types.isEmpty || types.contains($0.type) }
            if options.json { try Terminal.printJSON(places); return }
            if places.isEmpty {
                print(type == nil ? "No places yet: 'suite places add', 'import' or 'fetch'." : "No places of type \(type ?? "").")
                return
            }
            for place in places {
                print([Colour.accent("#\(place.id)"), place.name, "(\(place.type.rawValue))", place.coordinate.description, "[\(Places.pin(place.pinColor)) pin]"]
                    .joined(separator: "  "))
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Import GeoJSON (with ratings) or a saved Overpass JSON answer; all or nothing.",
            discussion: "Example:\n  suite places import places.geojson")
        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The file ('-' for standard input).", valueName: "file")) var file: String

        func run() throws {
            let summary: PlaceImportSummary
            if file != "-", try InputFile.isRegularFile(file) {
                // Read as it is imported: memory stays flat at any size.
                summary = try Places.open(options).importFile(at: URL(fileURLWithPath: file), name: file)
            } else {
                let data = file == "-" ? (try Terminal.readStandardInput()) : try Terminal.readFile(file)
                summary = try Places.open(options).importFile(data, name: file)
            }
            Places.warn(summary.warnings)
            if options.json { try Terminal.printJSON(summary); return }
            print("Imported \(summary.added) new and \(summary.updated) updated place\(summary.added + summary.updated == 1 ? "" : "s")"
                + (summary.unchanged > 0 ? " (\(summary.unchanged) unchanged)." : "."))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Export every place with your ratings as GeoJSON or CSV.",
            discussion: "Example:\n  suite places export --format geojson -o places.geojson")
        enum Format: String, ExpressibleByArgument { case geojson, csv }
        @OptionGroup var options: TextOptions
        @Option(help: ArgumentHelp("geojson or csv.", valueName: "format")) var format: Format = .geojson
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout ('-' is stdout; a device or FIFO is written into, never replaced).", valueName: "file")) var output: String?

        func run() throws {
            // Written as read from the store, place by place: memory stays flat at any size.
            let store = try Places.open(options, readOnly: true)
            try Terminal.stream(to: output) { emit in
                switch format {
                case .geojson:
                    try emit(PlaceFiles.geoJSONStart)
                    var first = true
                    try store.forEachPlace { place in
                        try emit(PlaceFiles.geoJSONFeature(place, first: first))
                        first = false
                    }
                    try emit(PlaceFiles.geoJSONEnd)
                case .csv:
                    try emit(Data(PlaceFiles.csvHeader.utf8))
                    try store.forEachPlace { place in try emit(Data(PlaceFiles.csvLine(place).utf8)) }
                }
            }
        }
    }

    struct Map: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "map", abstract: "Draw the places around you as an SVG map to open in a browser.",
            discussion: "Example:\n  suite places map --radius 1km -o map.svg")
        @OptionGroup var options: TextOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("LAT,LON, south and west negative (default: your current location).", valueName: "lat,lon"))
        var at: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("How far (default 1.5km).", valueName: "distance")) var radius = "1.5km"
        @Option(parsing: .unconditional, help: ArgumentHelp("At most this many places.", valueName: "n"), transform: NumberOption.int(1...10_000, "--limit")) var limit = 200
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The SVG file (stdout when not given or '-').", valueName: "file")) var output: String?

        func run() throws {
            let store = try Places.open(options, readOnly: true)
            let center = try Places.center(at, store: store)
            let metres = try Geo.parseDistance(radius)
            let places = try store.near(PlaceQuery(center: center, radius: metres, limit: limit))
            let svg = Data(MapRenderer.svg(places, center: center, radius: metres).utf8)
            try Terminal.emit(svg, to: output, note: " with \(places.count) place\(places.count == 1 ? "" : "s")")
        }
    }
}
