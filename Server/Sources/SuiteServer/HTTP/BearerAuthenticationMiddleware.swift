import Foundation
import Hummingbird

/// Requires `Authorization: Bearer TOKEN` with a live token and records the device in the
/// context; answers 401 otherwise.
package struct BearerAuthenticationMiddleware: RouterMiddleware {
    package typealias Context = ServerRequestContext
    /// Checks tokens.
    package let service: SyncService

    /// Creates the middleware.
    package init(service: SyncService) {
        self.service = service
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw SyncServiceError.unauthorized("missing bearer token")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw SyncServiceError.unauthorized("the Authorization header must be Bearer TOKEN")
        }
        var context = context
        context.session = try await service.authenticate(token: parts[1].trimmingCharacters(in: .whitespaces))
        return try await next(request, context)
    }

    /// The bearer token of a request, if it has one.
    package static func token(in request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
