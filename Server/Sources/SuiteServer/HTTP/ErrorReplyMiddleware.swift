import Hummingbird
import Logging
import SuiteSyncProtocol

/// Turns every error into a status and a ``ServerErrorReply`` body.
///
/// Refusals keep their message; storage failures are logged and answered with a message that
/// reveals nothing (503 when the database is unreachable, 500 otherwise).
package struct ErrorReplyMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Creates the middleware.
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as SyncServiceError {
            return try Self.reply(Self.status(of: error), message: error.description, request: request, context: context)
        } catch let error as HTTPError {
            return try Self.reply(error.status, message: error.body ?? error.status.reasonPhrase, request: request, context: context)
        } catch let error as any HTTPResponseError {
            return try Self.reply(error.status, message: error.status.reasonPhrase, request: request, context: context)
        } catch let error as ServerStorageError {
            context.logger.error("storage failure: \(error)")
            if case .unavailable = error {
                return try Self.reply(.serviceUnavailable, message: "the database is unavailable; try again later", request: request, context: context)
            }
            return try Self.reply(.internalServerError, message: "internal error", request: request, context: context)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("request failed: \(String(reflecting: error))")
            return try Self.reply(.internalServerError, message: "internal error", request: request, context: context)
        }
    }

    /// The status for a refusal.
    package static func status(of error: SyncServiceError) -> HTTPResponse.Status {
        switch error {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .tooManyAttempts: .tooManyRequests
        case .quotaExceeded: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        }
    }

    private static func reply(_ status: HTTPResponse.Status, message: String, request: Request, context: Context) throws -> Response {
        var response = try JSONBody(ServerErrorReply(error: message), status: status).response(from: request, context: context)
        if status == .unauthorized {
            response.headers[.wwwAuthenticate] = "Bearer"
        }
        return response
    }
}
