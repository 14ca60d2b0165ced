import Foundation
import SuiteStorage
import SuiteSyncProtocol
import WorkplaceCore

/// What went wrong talking to a sync server, as the CLI reports it.
enum SyncClientError: Error, CustomStringConvertible {
    /// The server could not be reached (exit 69); nothing was lost: changes stay queued.
    case unreachable(String)
    /// The server is busy or limiting this device (exit 75).
    case busy(String)
    /// The server refused the request (exit 1).
    case refused(String)
    /// The server does not know this device's token any more (exit 1).
    case signedOut

    var description: String {
        switch self {
        case .unreachable(let reason): return "cannot reach the sync server (\(reason)); changes stay queued for the next sync"
        case .busy(let reason): return "the sync server is busy (\(reason)); try again later"
        case .refused(let reason): return reason
        case .signedOut: return "the sync server no longer knows this device (revoked or logged out)"
        }
    }
}

/// The sync protocol over HTTP (libcurl), as a `SyncTransport`, plus the account calls.
struct HTTPSyncClient: SyncTransport {
    let server: URL
    var token: String?
    var timeout: TimeInterval = 60
    private let http = CurlHTTPClient()

    init(server: URL, token: String? = nil) {
        self.server = server
        self.token = token
    }

    func push(log: String, operations: [SyncEnvelope]) async throws -> SyncPushReply {
        try await call("POST", "/v1/logs/\(log)/push", body: SyncPushRequest(operations: operations))
    }

    func pull(log: String, after cursor: Int64, limit: Int) async throws -> SyncPullReply {
        try await call("GET", "/v1/logs/\(log)?after=\(cursor)&limit=\(limit)")
    }

    func compact(log: String, request: SyncCompactRequest) async throws -> SyncCompactReply {
        try await call("POST", "/v1/logs/\(log)/compact", body: request)
    }

    func signup(_ request: SignupRequest) async throws -> SessionReply { try await call("POST", "/v1/signup", body: request) }
    func prelogin(account: String) async throws -> PreloginReply { try await call("POST", "/v1/prelogin", body: PreloginRequest(account: account)) }
    func login(_ request: LoginRequest) async throws -> SessionReply { try await call("POST", "/v1/login", body: request) }
    func devices() async throws -> [DeviceInfo] { try await call("GET", "/v1/devices") }
    func revoke(device: String) async throws {
        let escaped = device.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? device
        _ = try await send("DELETE", "/v1/devices/\(escaped)", body: nil)
    }
    func logout() async throws { _ = try await send("POST", "/v1/logout", body: nil) }

    // Community
    func communitySettings() async throws -> CommunitySettings { try await call("GET", "/v1/community/settings") }
    func setCommunitySettings(_ settings: CommunitySettings) async throws -> CommunitySettings {
        try await call("PUT", "/v1/community/settings", body: settings)
    }
    func publishFavourites(_ quotes: [CommunityQuote]) async throws {
        _ = try await send("PUT", "/v1/community/favourites", body: try SyncProtocol.encoder.encode(CommunityFavouritesUpload(quotes: quotes)))
    }
    func publishRatings(_ ratings: [CommunityRating]) async throws {
        _ = try await send("PUT", "/v1/community/ratings", body: try SyncProtocol.encoder.encode(CommunityRatingsUpload(ratings: ratings)))
    }
    func topQuotes(limit: Int) async throws -> [CommunityQuoteCount] { try await call("GET", "/v1/community/quotes/top?limit=\(limit)") }
    func quoteFeed(after: Int64, fresh: Bool) async throws -> CommunityFeed<CommunityQuoteCount> {
        try await call("GET", "/v1/community/quotes?after=\(after)\(fresh ? "&fresh=1" : "")")
    }
    func placeFeed(after: Int64, fresh: Bool) async throws -> CommunityFeed<CommunityPlaceSummary> {
        try await call("GET", "/v1/community/places?after=\(after)\(fresh ? "&fresh=1" : "")")
    }
    func share(_ list: SharedListRequest) async throws -> SharedListInfo { try await call("POST", "/v1/shared", body: list) }
    func sharedLists() async throws -> [SharedListInfo] { try await call("GET", "/v1/shared") }
    func unshare(id: String) async throws {
        let escaped = id.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? id
        _ = try await send("DELETE", "/v1/shared/\(escaped)", body: nil)
    }

    private func call<Reply: Decodable>(_ method: String, _ path: String) async throws -> Reply {
        try decode(try await send(method, path, body: nil))
    }

    private func call<Reply: Decodable, Body: Encodable>(_ method: String, _ path: String, body: Body) async throws -> Reply {
        try decode(try await send(method, path, body: try SyncProtocol.encoder.encode(body)))
    }

    private func decode<Reply: Decodable>(_ data: Data) throws -> Reply {
        do {
            return try SyncProtocol.decoder.decode(Reply.self, from: data)
        } catch {
            throw SyncClientError.refused("the sync server answered something that is not the sync protocol")
        }
    }

    private func send(_ method: String, _ path: String, body: Data?) async throws -> Data {
        guard let url = URL(string: server.absoluteString.trimmingSuffix("/") + path) else {
            throw CLIError.usage("not a server URL: \(server.absoluteString)")
        }
        var headers = ["Accept": "application/json"]
        if body != nil { headers["Content-Type"] = "application/json" }
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(url: url, method: method, headers: headers, body: body, timeout: timeout))
        } catch let error as HTTPClientError {
            throw SyncClientError.unreachable(Self.scrubbed(error.description, token: token))
        }
        let message = (try? SyncProtocol.decoder.decode(ServerErrorReply.self, from: response.body).error).map { Self.scrubbed($0, token: token) }
        switch response.status {
        case 200..<300: return response.body
        case 401 where token != nil: throw SyncClientError.signedOut
        case 429, 503: throw SyncClientError.busy(message ?? "status \(response.status)")
        case 500...: throw SyncClientError.unreachable(message ?? "status \(response.status)")
        default: throw SyncClientError.refused(message ?? "the sync server refused the request (status \(response.status))")
        }
    }

    /// A text from elsewhere, without the token should it quote it.
    static func scrubbed(_ text: String, token: String?) -> String {
        guard let token, !token.isEmpty else { return text }
        return text.replacingOccurrences(of: token, with: "[token]")
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
