import Foundation
import HTTPTypes
import Hummingbird
import SuiteHTTPLimits

/// `serve --behind-proxy`: for a request whose connection comes from this machine (the proxy),
/// the client is the last address of `X-Forwarded-For` (the one the proxy added), and a request
/// the proxy received over plain HTTP (`X-Forwarded-Proto: http`) is refused. Headers from any
/// other peer are ignored.
package struct ProxyMiddleware: RouterMiddleware {
    package typealias Context = ServerRequestContext

    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.peerIsLoopback else { return try await next(request, context) }
        var context = context
        if let forwarded = request.headers[.xForwardedFor],
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            context.clientAddress = ClientAddress(text: last)
        }
        if let scheme = request.headers[.xForwardedProto], scheme.lowercased() != "https" {
            throw SyncServiceError.badRequest("this server takes requests over https only; the proxy received this one over \(scheme)")
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}
