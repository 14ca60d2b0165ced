import Hummingbird
import SuiteSyncProtocol

/// The HTTP API, version 1.
///
/// | route | answer |
/// |---|---|
/// | `GET /v1/health` | `ok` |
/// | `GET /metrics` | Prometheus text (from this machine only, not through a proxy) |
/// | `POST /v1/signup` | 201 ``SessionReply`` |
/// | `POST /v1/prelogin` | ``PreloginReply`` |
/// | `POST /v1/login` | ``SessionReply`` |
/// | `POST /v1/recover/key` | ``RecoveryKeyReply`` (body ``RecoveryKeyRequest``) |
/// | `POST /v1/recover` | 201 ``SessionReply`` (body ``RecoverRequest``) |
/// | `POST /v1/logout` | 204 |
/// | `POST /v1/account/password` | 204 (body ``PasswordChangeRequest``) |
/// | `POST /v1/account/delete` | 204 (body ``AccountDeletionRequest``) |
/// | `GET /v1/account` | ``AccountUsageReply`` |
/// | `GET /v1/devices` | [``DeviceInfo``] |
/// | `DELETE /v1/devices/{id}` | 204 |
/// | `POST /v1/logs/{log}/push` | ``SyncPushReply`` |
/// | `GET /v1/logs/{log}?after=N&limit=M` | ``SyncPullReply`` |
/// | `POST /v1/logs/{log}/compact` | ``SyncCompactReply`` (body ``SyncCompactRequest``) |
/// | `GET /v1/events` | `text/event-stream` |
/// | `GET`/`PUT /v1/community/settings` | ``CommunitySettings`` |
/// | `PUT /v1/community/favourites` | 204 (body ``CommunityFavouritesUpload``) |
/// | `PUT /v1/community/ratings` | 204 (body ``CommunityRatingsUpload``) |
/// | `GET /v1/community/quotes/top?limit=N` | [``CommunityQuoteCount``] |
/// | `POST /v1/community/quotes/lookup` | [``CommunityQuoteCount``] |
/// | `GET /v1/community/quotes?after=N&limit=M` | ``CommunityFeed`` of ``CommunityQuoteCount`` |
/// | `POST /v1/community/places/lookup` | [``CommunityPlaceSummary``] |
/// | `GET /v1/community/places?after=N&limit=M` | ``CommunityFeed`` of ``CommunityPlaceSummary`` |
/// | `POST /v1/shared` | 201 ``SharedListInfo`` |
/// | `GET /v1/shared` | [``SharedListInfo``] |
/// | `DELETE /v1/shared/{id}` | 204 |
/// | `GET /s/{id}`, `GET /s/{id}.json` | a shared list as HTML (no script) or JSON; no token needed |
///
/// Every route after prelogin, login and recover needs `Authorization: Bearer TOKEN`.
package enum ServerRouter {
    /// Builds the router.
    ///
    /// - Parameters:
    ///   - service: What the routes call.
    ///   - keepAlive: The event stream's keep-alive interval.
    ///   - behindProxy: Whether to take the client's address and scheme from a proxy on this
    ///     machine (``ProxyMiddleware``).
    ///   - connections: How many connections are open (for `/metrics`).
    /// - Returns: The router, error replies included.
    package static func make(
        service: SyncService, keepAlive: Duration = EventStream.defaultKeepAlive, behindProxy: Bool = false,
        connections: @escaping @Sendable () -> Int = { 0 }
    ) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        // Before the routes: middleware only wraps routes added after it. Metrics outermost, so
        // they see the status every error became.
        router.add(middleware: MetricsMiddleware(metrics: service.metrics))
        router.add(middleware: ErrorReplyMiddleware())
        if behindProxy { router.add(middleware: ProxyMiddleware()) }
        let v1 = router.group("v1")

        v1.get("health") { _, _ -> String in
            "ok"
        }
        // For a collector on this machine only: a request from elsewhere, or through a proxy
        // (which adds X-Forwarded-For), finds nothing here.
        router.get("metrics") { request, context -> Response in
            guard context.peerIsLoopback, request.headers[.xForwardedFor] == nil else {
                throw SyncServiceError.notFound("no such route")
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            let text = service.metrics.text(connections: connections(), streams: service.storage.events.subscriberCount)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }
        v1.post("signup") { request, context in
            let body = try await request.decodeProtocolBody(as: SignupRequest.self)
            return JSONBody(try await service.signup(body, from: context.clientAddress), status: .created)
        }
        v1.post("prelogin") { request, _ in
            let body = try await request.decodeProtocolBody(as: PreloginRequest.self)
            return JSONBody(try await service.prelogin(body))
        }
        v1.post("login") { request, context in
            let body = try await request.decodeProtocolBody(as: LoginRequest.self)
            return JSONBody(try await service.login(body, from: context.clientAddress))
        }
        v1.post("recover/key") { request, context in
            let body = try await request.decodeProtocolBody(as: RecoveryKeyRequest.self)
            return JSONBody(try await service.recoveryKey(body, from: context.clientAddress))
        }
        v1.post("recover") { request, context in
            let body = try await request.decodeProtocolBody(as: RecoverRequest.self)
            return JSONBody(try await service.recover(body, from: context.clientAddress), status: .created)
        }

        let authenticated = v1.group().add(middleware: BearerAuthenticationMiddleware(service: service))
        authenticated.post("logout") { _, context -> HTTPResponse.Status in
            try await service.logout(try context.requireSession())
            return .noContent
        }
        authenticated.post("account/password") { request, context -> HTTPResponse.Status in
            let session = try context.requireSession()
            try await service.changePassword(try await request.decodeProtocolBody(as: PasswordChangeRequest.self), session: session, from: context.clientAddress)
            return .noContent
        }
        authenticated.post("account/delete") { request, context -> HTTPResponse.Status in
            let session = try context.requireSession()
            try await service.deleteAccount(try await request.decodeProtocolBody(as: AccountDeletionRequest.self), session: session, from: context.clientAddress)
            return .noContent
        }
        authenticated.get("account") { _, context in
            JSONBody(try await service.usage(try context.requireSession()))
        }
        authenticated.get("devices") { _, context in
            JSONBody(try await service.devices(try context.requireSession()))
        }
        authenticated.delete("devices/{id}") { _, context -> HTTPResponse.Status in
            let id = try context.parameters.require("id")
            try await service.revokeDevice(id: id, session: try context.requireSession())
            return .noContent
        }
        authenticated.post("logs/{log}/push") { request, context in
            let log = try context.parameters.require("log")
            let session = try context.requireSession()
            // The name first: a bad name is a 400 whatever the body.
            guard SyncProtocol.isValidLogName(log) else {
                throw SyncServiceError.badRequest("a log name is 1 to \(SyncProtocol.maximumNameLength) lower-case letters, digits or '-'")
            }
            let body = try await request.decodeProtocolBody(as: SyncPushRequest.self)
            return JSONBody(try await service.push(log: log, request: body, session: session))
        }
        authenticated.post("logs/{log}/compact") { request, context in
            let log = try context.parameters.require("log")
            let session = try context.requireSession()
            let body = try await request.decodeProtocolBody(as: SyncCompactRequest.self)
            return JSONBody(try await service.compact(log: log, request: body, session: session))
        }
        authenticated.get("logs/{log}") { request, context in
            let log = try context.parameters.require("log")
            let session = try context.requireSession()
            let query = request.uri.queryParameters
            let after: Int64
            if let text = query["after"] {
                guard let value = Int64(String(text)) else { throw SyncServiceError.badRequest("after must be a whole number") }
                after = value
            } else {
                after = 0
            }
            var limit: Int?
            if let text = query["limit"] {
                guard let value = Int(String(text)) else { throw SyncServiceError.badRequest("limit must be a whole number") }
                limit = value
            }
            return JSONBody(try await service.pull(log: log, after: after, limit: limit, session: session))
        }
        authenticated.get("events") { request, context in
            let session = try context.requireSession()
            let token = BearerAuthenticationMiddleware.token(in: request) ?? ""
            return EventStream.response(hub: service.storage.events, session: session, keepAlive: keepAlive) {
                // A revoked token or a disabled account ends the stream; a storage failure is
                // neither: the stream goes on.
                do { return try await service.authenticate(token: token) == session } catch is SyncServiceError { return false } catch { return true }
            }
        }
        addCommunity(to: authenticated, service: service)
        router.get("s/{id}") { _, context in
            try await SharedListPage.response(id: try context.parameters.require("id"), service: service)
        }
        return router
    }

    private static func addCommunity(to group: RouterGroup<ServerRequestContext>, service: SyncService) {
        group.get("community/settings") { _, context in
            JSONBody(try await service.communitySettings(try context.requireSession()))
        }
        group.put("community/settings") { request, context in
            let session = try context.requireSession()
            let body = try await request.decodeProtocolBody(as: CommunitySettings.self)
            return JSONBody(try await service.setCommunitySettings(body, session: session))
        }
        group.put("community/favourites") { request, context -> HTTPResponse.Status in
            let session = try context.requireSession()
            try await service.publishFavourites(try await request.decodeProtocolBody(as: CommunityFavouritesUpload.self), session: session)
            return .noContent
        }
        group.put("community/ratings") { request, context -> HTTPResponse.Status in
            let session = try context.requireSession()
            try await service.publishRatings(try await request.decodeProtocolBody(as: CommunityRatingsUpload.self), session: session)
            return .noContent
        }
        group.get("community/quotes/top") { request, context in
            let session = try context.requireSession()
            return JSONBody(try await service.topQuotes(limit: try wholeNumber(request, "limit").map(Int.init), session: session))
        }
        group.post("community/quotes/lookup") { request, context in
            let session = try context.requireSession()
            return JSONBody(try await service.lookupQuotes(try await request.decodeProtocolBody(as: CommunityLookupRequest.self), session: session))
        }
        group.get("community/quotes") { request, context in
            let session = try context.requireSession()
            return JSONBody(try await service.quoteFeed(
                after: try wholeNumber(request, "after") ?? 0, limit: try wholeNumber(request, "limit").map(Int.init),
                fresh: try wholeNumber(request, "fresh") == 1, session: session))
        }
        group.post("community/places/lookup") { request, context in
            let session = try context.requireSession()
            return JSONBody(try await service.lookupPlaces(try await request.decodeProtocolBody(as: CommunityLookupRequest.self), session: session))
        }
        group.get("community/places") { request, context in
            let session = try context.requireSession()
            return JSONBody(try await service.placeFeed(
                after: try wholeNumber(request, "after") ?? 0, limit: try wholeNumber(request, "limit").map(Int.init),
                fresh: try wholeNumber(request, "fresh") == 1, session: session))
        }
        group.post("shared") { request, context in
            let session = try context.requireSession()
            return JSONBody(try await service.shareList(try await request.decodeProtocolBody(as: SharedListRequest.self), session: session), status: .created)
        }
        group.get("shared") { _, context in
            JSONBody(try await service.sharedLists(try context.requireSession()))
        }
        group.delete("shared/{id}") { _, context -> HTTPResponse.Status in
            let id = try context.parameters.require("id")
            try await service.unshareList(id: id, session: try context.requireSession())
            return .noContent
        }
    }

    /// A query parameter as a whole number, or nil when absent.
    private static func wholeNumber(_ request: Request, _ name: String) throws -> Int64? {
        guard let text = request.uri.queryParameters[Substring(name)] else { return nil }
        guard let value = Int64(String(text)) else { throw SyncServiceError.badRequest("\(name) must be a whole number") }
        return value
    }
}
