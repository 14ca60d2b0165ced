import ArgumentParser
import Foundation
import SuiteEnvironment
import WorkplaceCore

/// `suite places`: places near you that are good for working, rated by you.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Places near you that are good for working, fetched from Yelp or OpenStreetMap and rated by you.",
        discussion: """
            Set where you are, fetch places around it, rate the ones you know (0–5 for noise, \
            outlets, wifi, cost, seating), and search near you by distance or by score.

            Example:
              suite places location set 52.5200,13.4050
              suite places fetch --provider osm --radius 1km
              suite places near --min wifi=4 --open-now --sort score
            """,
        subcommands: [
            Location.self, List.self, Near.self, Fetch.self, Add.self, Rate.self, Show.self,
            Remove.self, Import.self, Export.self, Map.self,
        ]
    )
}

extension BusinessType: ExpressibleByArgument {}
extension PinColor: ExpressibleByArgument {}
extension MenuOption: ExpressibleByArgument {}
extension PlaceSort: ExpressibleByArgument {}

/// Where the providers are: the real services unless overridden (for testing against a local
/// server, or a self-hosted Overpass/Nominatim).
struct ProviderOptions: ParsableArguments {
    @Option(name: .customLong("yelp-url"), help: ArgumentHelp("Yelp API base URL.", visibility: .hidden)) var yelpURL: String?
    @Option(name: .customLong("overpass-url"), help: ArgumentHelp("Overpass API base URL.", visibility: .hidden)) var overpassURL: String?
    @Option(name: .customLong("nominatim-url"), help: ArgumentHelp("Nominatim base URL.", visibility: .hidden)) var nominatimURL: String?
    @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds to wait for each answer (0.1 to 3600).", valueName: "s"),
            transform: NumberOption.seconds(0.1...3600, "--timeout"))
    var timeout: Double = 20

    static let userAgent = SuiteEnvironment.userAgent("places")

    /// The provider's address: the flag, else its variable, else the real service (``SuiteEnvironment``).
    func url(_ provider: SuiteEnvironment.Provider, option: String?) throws -> URL {
        do {
            return try Terminal.suite.url(of: provider, option: option)
        } catch {
            throw CLIError.usage(error.description)
        }
    }

    func geocoder() throws -> NominatimGeocoder {
        NominatimGeocoder(baseURL: try url(.nominatim, option: nominatimURL),
                          userAgent: Self.userAgent, timeout: timeout, client: CurlHTTPClient())
    }
}

enum Places {
    /// Opens the store; `readOnly` for commands that only read (nothing is written to disk).
    static func open(_ options: some StoreOptions, readOnly: Bool = false) throws -> PlaceStore {
        try PlaceStore(url: options.storeFile(PlaceStore.fileName), readOnly: readOnly)
    }

    /// `--at`, else the stored current location.
    static func center(_ at: String?, store: PlaceStore) throws -> Coordinate {
        if let at { return try Coordinate.parse(at) }
        guard let location = try store.location() else { throw WorkplaceError.noLocation }
        return location.coordinate
    }


    /// One line for a found place; with `showScore`, its score and smoothed quality after the distance.
    static func describe(_ item: NearbyPlace, showScore: Bool = false) -> String {
        let place = item.place
        var parts = [Colour.accent("#\(place.id)"), place.name, "(\(place.type.rawValue))", distance(item.distance)]
        if showScore {
            let unrated = place.rating?.quality == nil
            let basis = !unrated ? "" : place.community.map { ", community of \($0.count)" } ?? ", unrated"
            parts.append(String(format: "score %.2f (quality %.1f%@)", item.score, item.smoothedQuality, basis))
        }
        if let rating = place.rating, !rating.values.isEmpty {
            parts.append(RatingDimension.allCases.compactMap { dimension in rating.values[dimension].map { "\(dimension.rawValue) \($0)" } }.joined(separator: ", "))
        }
        switch item.isOpen {
        case true?: parts.append("open now")
        case false?: parts.append("closed now")
        case nil: break
        }
        parts.append("[\(pin(place.pinColor)) pin]")
        return parts.joined(separator: "  ")
    }

    /// The kinds in a comma-separated `--type` (none: every kind).
    static func types(_ text: String?) throws -> Set<BusinessType> {
        var types: Set<BusinessType> = []
        for name in (text ?? "").split(separator: ",") {
            guard let value = BusinessType(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw CLIError.usage("unknown type '\(name)': use \(BusinessType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            types.insert(value)
        }
        return types
    }

    /// A pin's colour name, in its colour (red pins red: not rated yet; blue: yours).
    static func pin(_ colour: PinColor) -> String {
        let shown: [PinColor: Colour.Name] = [.red: .red, .blue: .blue, .green: .green, .orange: .yellow, .purple: .magenta, .yellow: .yellow]
        return Colour.paint(colour.rawValue, shown[colour])
    }

    /// A place's number from the words of its positional argument (``SignedArgument``).
    static func id(_ words: [String]) throws -> Place.ID {
        let text = try SignedArgument.one(words, name: "id")
        guard let id = Place.ID(text) else { throw ValidationError("The value '\(text)' is invalid for '<id>'") }
        return id
    }

    /// The smoothed quality and how it was reached, for `places show`.
    static func explainQuality(_ rating: Rating?, community: CommunityRatingSummary? = nil) -> String {
        let smoothed = PlaceRanking.smoothedQuality(rating, community: community)
        let prior = PlaceRanking.priorMean, m = PlaceRanking.priorWeight
        guard let rating, let quality = rating.quality else {
            if let community, let quality = community.quality {
                let v = community.count
                return String(format: "%.2f of 5 = %ld/(%ld+%g)·%.2f + %g/(%ld+%g)·%.1f (you have not rated it: the community's medians, "
                              + "noise and cost reversed, from %ld rating%@, pulled towards %.1f while there are few)",
                              smoothed, v, v, m, quality, m, v, m, prior, v, v == 1 ? "" : "s", prior)
            }
            return String(format: "%.1f of 5 (unrated: counts as %.1f, the middle of the scale, until you rate it)", smoothed, prior)
        }
        let v = rating.values.count
        return String(format: "%.2f of 5 = %ld/(%ld+%g)·%.2f + %g/(%ld+%g)·%.1f (the mean %.2f of your %ld rating%@, noise and cost reversed, "
                      + "pulled towards %.1f while there are few); 'near --sort score' multiplies it by a distance decay",
                      smoothed, v, v, m, quality, m, v, m, prior, quality, v, v == 1 ? "" : "s", prior)
    }

    /// One `suite: warning:` line for what an import could not use as given.
    static func warn(_ warnings: [String]) {
        guard !warnings.isEmpty else { return }
        let shown = warnings.prefix(5).joined(separator: "; ")
        let more = warnings.count > 5 ? "; and \(warnings.count - 5) more" : ""
        Terminal.printError("suite: warning: \(shown)\(more) (types Suite knows: \(BusinessType.allCases.map(\.rawValue).joined(separator: ", ")))")
    }

    static func distance(_ metres: Double) -> String {
        metres >= 1000 ? String(format: "%.1f km", metres / 1000) : "\(Int(metres.rounded())) m"
    }
}
