import Foundation
@_exported import SuiteStorage

/// Everything that can go wrong in `WorkplaceCore`.
public enum WorkplaceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No place with that number.
    case placeNotFound(Int64)
    /// A coordinate out of range or unreadable.
    case invalidCoordinate(String)
    /// A rating value outside 0…5 (or not a whole number).
    case invalidRating(dimension: String, value: String)
    /// Empty or over-long text, or control characters.
    case invalidText(String)
    /// A search that cannot be run (negative radius, bad limit, …).
    case invalidQuery(String)
    /// No current location set and none given.
    case noLocation
    /// An address the geocoder found nothing for.
    case addressNotFound(String)
    /// The provider needs a key that was not given.
    case missingAPIKey(provider: String)
    /// The key cannot be sent: it holds a line break or another control character (it would
    /// inject request headers). The key itself is never part of the message.
    case invalidAPIKey(provider: String)
    /// The provider refused the key.
    case providerUnauthorized(provider: String, detail: String)
    /// The provider is rate limiting and kept doing so after retries.
    case providerRateLimited(provider: String)
    /// The provider failed, timed out, or answered with something unreadable; or the task was
    /// cancelled (detail `cancelled`), which stops a fetch without sending another request.
    case providerUnavailable(provider: String, detail: String)
    /// A file to import is malformed; nothing was imported.
    case malformedImport(file: String, reason: String)
    /// The store could not be opened or used; ``StoreError/kind`` says why.
    case store(StoreError)

    public var description: String {
        switch self {
        case .placeNotFound(let id): return "no place \(id)"
        case .invalidCoordinate(let detail): return "invalid coordinate \(detail)"
        case .invalidRating(let dimension, let value):
            if dimension == "wifi-mbps" { return "invalid wifi speed '\(value)': use a number of Mbit/s from 0 to 100000" }
            return "invalid \(dimension) rating '\(value)': use a whole number from 0 to 5"
        case .invalidText(let reason): return reason
        case .invalidQuery(let reason): return "invalid search: \(reason)"
        case .noLocation: return "no current location: set one with 'suite places location set LAT,LON' or pass --at"
        case .addressNotFound(let address): return "no place found for the address '\(address)'"
        case .invalidAPIKey(let provider):
            return "the \(provider) API key contains a line break or another control character, so it was not sent: check YELP_API_KEY"
        case .missingAPIKey(let provider): return "\(provider) needs an API key: set YELP_API_KEY (or use --provider osm)"
        case .providerUnauthorized(let provider, let detail): return "\(provider) refused the API key (\(detail))"
        case .providerRateLimited(let provider): return "\(provider) is rate limiting requests; try again later"
        case .providerUnavailable(let provider, let detail): return "\(provider) is unavailable: \(detail)"
        case .malformedImport(let file, let reason): return "\(file): \(reason); nothing was imported"
        case .store(let error): return error.description
        }
    }
}

extension WorkplaceError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) { self = .store(StoreError(storeFailure)) }
}
