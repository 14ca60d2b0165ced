import Foundation
import Hummingbird
import NIOCore
import SuiteSyncProtocol

/// A protocol body as the response: encoded with ``SyncProtocol/encoder``.
package struct JSONBody<Value: Encodable & Sendable>: ResponseGenerator {
    /// The status (200 unless told).
    package var status: HTTPResponse.Status
    /// The body.
    package var value: Value

    /// Creates a JSON response.
    package init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try SyncProtocol.encoder.encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Request {
    /// The largest body the server reads: a push of ``SyncProtocol/maximumPushBytes`` fits,
    /// base64 and JSON included.
    static let maximumBodySize = 16 * 1024 * 1024

    /// Decodes the body with ``SyncProtocol/decoder``.
    ///
    /// - Parameter type: The protocol type.
    /// - Returns: The decoded body.
    /// - Throws: ``SyncServiceError/badRequest(_:)`` if it is not that JSON; 413 past the limit.
    func decodeProtocolBody<Value: Decodable>(as type: Value.Type) async throws -> Value {
        let buffer = try await body.collect(upTo: Self.maximumBodySize)
        do {
            return try SyncProtocol.decoder.decode(type, from: Data(buffer.readableBytesView))
        } catch {
            throw SyncServiceError.badRequest("the body is not a valid \(Value.self)")
        }
    }
}
