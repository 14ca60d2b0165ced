import Foundation
import SuiteStorage
import SuiteSyncProtocol
import SuiteHTTP

/// The sync protocol over HTTP, as a `SyncTransport`, plus the account and community calls:
/// every request a device makes to a `suite-server`, through any `HTTPClient`
/// (URLSession in apps, libcurl in the `suite` tool).
package struct SyncServerClient: SyncTransport {
    package let server: URL
    package var token: String?
    package var timeout: TimeInterval = 60
    private let http: any HTTPClient

    package init(server: URL, token: String? = nil, http: any HTTPClient) {
        self.server = server
        self.token = token
        self.http = http
    }

    package func push(log: String, operations: [SyncEnvelope]) async throws -> SyncPushReply {
        try await call("POST", "/v1/logs/\(log)/push", body: SyncPushRequest(operations: operations))
    }

    package func pull(log: String, after cursor: Int64, limit: Int) async throws -> SyncPullReply {
        let body = try await send("GET", "/v1/logs/\(log)?after=\(cursor)&limit=\(limit)", body: nil)
        // An answer carries up to a thousand operations: read directly, as the protocol's
        // decoder reads it; anything unusual goes to that decoder.
        if let reply = PlainJSON.read(body, Self.pullReply) { return reply }
        return try decode(body)
    }

    /// The pull answer `json` holds, as ``SyncProtocol/decoder`` reads it; nil for anything
    /// ``PlainJSON`` leaves to it (unknown members among them).
    private static func pullReply(_ json: inout PlainJSON) -> SyncPullReply? {
        var epoch: String?, head: Int64?, next: Int64?, operations: [SyncEnvelope]?
        var anchor: String??, serverTime: Int64??, compacted: Int64??, compactionWanted: Bool??
        let read = json.object { name, json in
            switch name {
            case "epoch": return PlainJSON.once(&epoch, json.text())
            case "head": return PlainJSON.once(&head, json.integer())
            case "next": return PlainJSON.once(&next, json.integer())
            case "anchor": return PlainJSON.once(&anchor, json.nullable { $0.text() })
            case "serverTime": return PlainJSON.once(&serverTime, json.nullable { $0.integer() })
            case "compacted": return PlainJSON.once(&compacted, json.nullable { $0.integer() })
            case "compactionWanted": return PlainJSON.once(&compactionWanted, json.nullable { $0.boolean() })
            case "operations":
                var envelopes: [SyncEnvelope] = []
                guard json.array({ json in
                    guard let envelope = Self.envelope(&json) else { return false }
                    envelopes.append(envelope)
                    return true
                }) else { return false }
                return PlainJSON.once(&operations, envelopes)
            default: return false
            }
        }
        guard read, let epoch, let head, let next, let operations else { return nil }
        return SyncPullReply(epoch: epoch, head: head, operations: operations, next: next, anchor: anchor ?? nil,
                             serverTime: serverTime ?? nil, compacted: compacted ?? nil, compactionWanted: compactionWanted ?? nil)
    }

    /// One operation of a pull answer (its payload in base64, as the decoder reads `Data`).
    private static func envelope(_ json: inout PlainJSON) -> SyncEnvelope? {
        var id: String?, slot: String?, payload: Data?
        let read = json.object { name, json in
            switch name {
            case "id": return PlainJSON.once(&id, json.text())
            case "slot": return PlainJSON.once(&slot, json.text())
            case "payload": return PlainJSON.once(&payload, json.text().flatMap { Data(base64Encoded: $0) })
            default: return false
            }
        }
        guard read, let id, let slot, let payload else { return nil }
        return SyncEnvelope(id: id, slot: slot, payload: payload)
    }

    package func compact(log: String, request: SyncCompactRequest) async throws -> SyncCompactReply {
        try await call("POST", "/v1/logs/\(log)/compact", body: request)
    }

    package func signup(_ request: SignupRequest) async throws -> SessionReply { try await call("POST", "/v1/signup", body: request) }
    package func prelogin(account: String) async throws -> PreloginReply { try await call("POST", "/v1/prelogin", body: PreloginRequest(account: account)) }
    package func login(_ request: LoginRequest) async throws -> SessionReply { try await call("POST", "/v1/login", body: request) }
    package func devices() async throws -> [DeviceInfo] { try await call("GET", "/v1/devices") }
    package func usage() async throws -> AccountUsageReply { try await call("GET", "/v1/account") }
    package func revoke(device: String) async throws {
        let escaped = device.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? device
        _ = try await send("DELETE", "/v1/devices/\(escaped)", body: nil)
    }
    package func logout() async throws { _ = try await send("POST", "/v1/logout", body: nil) }
    package func changePassword(_ request: PasswordChangeRequest) async throws {
        _ = try await send("POST", "/v1/account/password", body: try SyncProtocol.encoder.encode(request))
    }
    package func recoveryKey(_ request: RecoveryKeyRequest) async throws -> RecoveryKeyReply { try await call("POST", "/v1/recover/key", body: request) }
    package func recover(_ request: RecoverRequest) async throws -> SessionReply { try await call("POST", "/v1/recover", body: request) }
    package func deleteAccount(_ request: AccountDeletionRequest) async throws {
        _ = try await send("POST", "/v1/account/delete", body: try SyncProtocol.encoder.encode(request))
    }

    // Community
    package func communitySettings() async throws -> CommunitySettings { try await call("GET", "/v1/community/settings") }
    package func setCommunitySettings(_ settings: CommunitySettings) async throws -> CommunitySettings {
        try await call("PUT", "/v1/community/settings", body: settings)
    }
    package func publishFavourites(_ quotes: [CommunityQuote]) async throws {
        _ = try await send("PUT", "/v1/community/favourites", body: try SyncProtocol.encoder.encode(CommunityFavouritesUpload(quotes: quotes)))
    }
    package func publishRatings(_ ratings: [CommunityRating]) async throws {
        _ = try await send("PUT", "/v1/community/ratings", body: try SyncProtocol.encoder.encode(CommunityRatingsUpload(ratings: ratings)))
    }
    package func topQuotes(limit: Int) async throws -> [CommunityQuoteCount] { try await call("GET", "/v1/community/quotes/top?limit=\(limit)") }
    package func quoteFeed(after: Int64, fresh: Bool) async throws -> CommunityFeed<CommunityQuoteCount> {
        try await call("GET", "/v1/community/quotes?after=\(after)\(fresh ? "&fresh=1" : "")")
    }
    package func placeFeed(after: Int64, fresh: Bool) async throws -> CommunityFeed<CommunityPlaceSummary> {
        try await call("GET", "/v1/community/places?after=\(after)\(fresh ? "&fresh=1" : "")")
    }
    package func share(_ list: SharedListRequest) async throws -> SharedListInfo { try await call("POST", "/v1/shared", body: list) }
    package func sharedLists() async throws -> [SharedListInfo] { try await call("GET", "/v1/shared") }
    package func unshare(id: String) async throws {
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
            throw SyncError(.serverBroken, "the sync server answered something that is not the sync protocol")
        }
    }

    private func send(_ method: String, _ path: String, body: Data?) async throws -> Data {
        guard let url = URL(string: server.absoluteString.trimmingSuffix("/") + path) else {
            throw SyncError(.badInput, "not a server URL: \(server.absoluteString)")
        }
        var headers = ["Accept": "application/json"]
        if body != nil { headers["Content-Type"] = "application/json" }
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(url: url, method: method, headers: headers, body: body, timeout: timeout))
        } catch let error as HTTPClientError {
            throw SyncError.unreachable(Self.scrubbed(error.description, token: token))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw SyncError.unreachable(Self.scrubbed("\(error)", token: token))
        }
        if (200..<300).contains(response.status) { return response.body }
        // Only an error answer is read for its message (a pull's answer is large).
        let message = (try? SyncProtocol.decoder.decode(ServerErrorReply.self, from: response.body).error).map { Self.scrubbed($0, token: token) }
        switch response.status {
        case 401 where token != nil: throw SyncError.signedOut
        case 429, 503: throw SyncError.busy(message ?? "status \(response.status)")
        case 507: throw SyncError(.quotaFull, message ?? "the account's storage quota on the sync server is full")
        case 500...: throw SyncError.unreachable(message ?? "status \(response.status)")
        default: throw SyncError.refused(message ?? "the sync server refused the request (status \(response.status))")
        }
    }

    /// A text from elsewhere, without the token should it quote it.
    package static func scrubbed(_ text: String, token: String?) -> String {
        guard let token, !token.isEmpty else { return text }
        return text.replacingOccurrences(of: token, with: "[token]")
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
